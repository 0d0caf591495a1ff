import { describe, expect, it } from 'vitest';
import { createIonDid } from '../../../src/did/ion.js';
import { ionShortForm } from '../../../src/did/ion-form.js';
import { generateKeyPair } from '../../../src/keys.js';
import { serviceResolver } from '../../../src/service/didcomm/keys.js';
import type { ServiceIdentity } from '../../../src/service/identity.js';
import type { StoredDidRegistry } from '../../../src/store/dids.js';

describe("the service's DID resolution cache", () => {
  it('holds every holder of a fleet: the first of 1,200 DIDs (long and short form) is still cached after the others', async () => {
    const longForms = new Map<string, string>();
    let registryReads = 0;
    const registry = {
      get: async (did: string) => {
        registryReads++;
        return longForms.get(ionShortForm(did));
      },
    } as unknown as StoredDidRegistry;
    const identity = { did: 'did:web:service.example' } as ServiceIdentity;
    const resolve = serviceResolver({ identity }, registry);
    // One key pair, many endpoints: 1,200 distinct DIDs without 2,400 key generations.
    const keys = { authenticationKey: generateKeyPair('Ed25519'), keyAgreementKey: generateKeyPair('X25519') };
    const dids = Array.from({ length: 1200 }, (_, i) => createIonDid({ ...keys, endpoint: `memory://holder-${i}` }).did);
    for (const did of dids) longForms.set(ionShortForm(did), did);
    const first = await resolve(dids[0]!);
    const firstShort = await resolve(ionShortForm(dids[0]!));
    expect(first?.id).toBe(dids[0]);
    expect(firstShort).toBeTruthy();
    for (const did of dids.slice(1)) {
      await resolve(did);
      await resolve(ionShortForm(did));
    }
    const reads = registryReads;
    // Cached results are shared frozen objects: the same object means no second resolution.
    expect(await resolve(dids[0]!)).toBe(first);
    expect(await resolve(ionShortForm(dids[0]!))).toBe(firstShort);
    expect(registryReads).toBe(reads);
  });
});
