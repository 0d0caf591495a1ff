// The harness's own DID, in the form other resolvers read: a did:peer:2 with no key listed twice
// and its key-agreement key first, a did:peer:4 long form (--as did:peer:4), or (--as did:web) a
// did:web it serves itself on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { startCounterpart } from '../../src/harness/counterpart.js';
import { harnessIdentity } from '../../src/harness/harness-did.js';
import { PROBES } from '../../src/harness/suites/probes.js';
import { fullRegistry } from '../../src/harness/check.js';
import { errorsOf } from '../../src/conformance/types.js';

const resolve = documentResolver(createResolver({}));

describe('the harness identity', () => {
  it('did:peer:2: E, V, A — three different keys, the key-agreement one first', () => {
    const id = harnessIdentity('did:peer:2', 'http://127.0.0.1:1', 'http://127.0.0.1:1/didcomm');
    const elements = id.did.slice('did:peer:2.'.length).split('.');
    expect(elements.map((e) => e[0])).toEqual(['E', 'V', 'A', 'S']);
    expect(new Set(elements.slice(0, 3).map((e) => e.slice(1))).size).toBe(3);
    expect(id.document.keyAgreement).toEqual([`${id.did}#key-1`]);
    expect(id.document.authentication).toEqual([`${id.did}#key-2`]);
    expect(id.document.assertionMethod).toEqual([`${id.did}#key-3`]);
    expect(id.secrets.map((s) => s.id)).toEqual([`${id.did}#key-1`, `${id.did}#key-2`, `${id.did}#key-3`]);
    expect([id.authentication.kid, id.assertion.kid]).toEqual([`${id.did}#key-2`, `${id.did}#key-3`]);
  });

  it('did:peer:4: the long form, whose document holds the same three keys once each', () => {
    const id = harnessIdentity('did:peer:4', 'http://127.0.0.1:1', 'http://127.0.0.1:1/didcomm');
    expect(id.did).toMatch(/^did:peer:4zQm\w{44}:z\w+$/);
    expect(id.document.keyAgreement).toEqual([`${id.did}#key-1`]);
    expect(id.document.authentication).toEqual([`${id.did}#key-2`]);
    expect(id.document.assertionMethod).toEqual([`${id.did}#key-3`]);
    expect(new Set(id.document.verificationMethod!.map((m) => m.publicKeyMultibase)).size).toBe(3);
  });

  it('did:web: served by the harness at /.well-known/did.json and resolved from there', async () => {
    const cp = await startCounterpart({ resolve, postTimeoutMs: 1000, as: 'did:web' });
    try {
      expect(cp.did).toBe(`did:web:127.0.0.1%3A${new URL(cp.baseUrl).port}`);
      const served = (await (await fetch(`${cp.baseUrl}/.well-known/did.json`)).json()) as { id: string; service: Array<{ serviceEndpoint: { uri: string } }> };
      expect(served.id).toBe(cp.did);
      expect(served.service[0]!.serviceEndpoint.uri).toBe(cp.endpoint);
      expect((await resolve(cp.did))?.id).toBe(cp.did);
    } finally {
      await cp.close();
    }
  });
});

describe('the probes of disclosed protocols', () => {
  it('cover every protocol idsync speaks, and each probe is itself a conformant message', async () => {
    expect(Object.keys(PROBES).sort()).toEqual([
      'https://didcomm.org/basicmessage/2', 'https://didcomm.org/discover-features/2', 'https://didcomm.org/issue-credential/3',
      'https://didcomm.org/messagepickup/3', 'https://didcomm.org/present-proof/3', 'https://didcomm.org/report-problem/2', 'https://didcomm.org/trust-ping/2',
    ]);
    const registry = fullRegistry();
    const cp = await startCounterpart({ resolve, postTimeoutMs: 1000 });
    try {
      for (const [major, probe] of Object.entries(PROBES)) {
        const message = probe.build(cp, `${major}.0/${probe.name}`);
        expect(message.type).toBe(`${major}.0/${probe.name}`);
        expect(errorsOf(registry.check(message)), `${message.type}`).toEqual([]);
      }
    } finally {
      await cp.close();
    }
  });
});
