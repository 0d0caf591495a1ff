// ION document model and the Sidetree standard patch actions (Sidetree v1.0.0 §DID State Patches):
// replace, add-public-keys, remove-public-keys, add-services, remove-services. Validation follows
// the ION rules: ids are at most 50 base64url characters, service types at most 30 characters.
import { IdsyncError } from '../errors.js';

export type IonPurpose = 'authentication' | 'assertionMethod' | 'capabilityInvocation' | 'capabilityDelegation' | 'keyAgreement';

export interface IonPublicKey {
  id: string;
  type: string;
  publicKeyJwk: Record<string, unknown>;
  purposes?: IonPurpose[];
}

export interface IonService {
  id: string;
  type: string;
  serviceEndpoint: string | Record<string, unknown>;
}

export interface IonDocumentModel {
  publicKeys?: IonPublicKey[];
  services?: IonService[];
}

const PURPOSES = new Set<string>(['authentication', 'assertionMethod', 'capabilityInvocation', 'capabilityDelegation', 'keyAgreement']);
const ID = /^[A-Za-z0-9_-]{1,50}$/;

function fail(message: string): never {
  throw new IdsyncError('invalid_did', message, { details: { reason: 'invalid_delta' } });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(o: Record<string, unknown>, allowed: string[], what: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(`unexpected property '${k}' in ${what}`);
}

function checkId(id: unknown, what: string): void {
  if (typeof id !== 'string' || !ID.test(id)) fail(`${what} id must be 1-50 base64url characters`);
}

function checkUnique(ids: string[], what: string): void {
  if (new Set(ids).size !== ids.length) fail(`duplicate ${what} id`);
}

function checkPublicKeys(keys: unknown): void {
  if (!Array.isArray(keys)) fail('publicKeys must be an array');
  for (const pk of keys) {
    if (!isObject(pk)) fail('a public key must be an object');
    onlyKeys(pk, ['id', 'type', 'purposes', 'publicKeyJwk'], 'a public key');
    checkId(pk.id, 'public key');
    if (typeof pk.type !== 'string') fail('a public key type must be a string');
    if (!isObject(pk.publicKeyJwk)) fail('publicKeyJwk must be an object');
    if ('d' in pk.publicKeyJwk) fail('publicKeyJwk must not hold a private key');
    if (pk.purposes !== undefined) {
      if (!Array.isArray(pk.purposes) || pk.purposes.some((p) => !PURPOSES.has(p as string))) fail('unknown public key purpose');
      if (new Set(pk.purposes).size !== pk.purposes.length) fail('duplicate public key purpose');
    }
  }
  checkUnique(keys.map((k) => k.id as string), 'public key');
}

function checkServices(services: unknown): void {
  if (!Array.isArray(services)) fail('services must be an array');
  for (const s of services) {
    if (!isObject(s)) fail('a service must be an object');
    onlyKeys(s, ['id', 'type', 'serviceEndpoint'], 'a service');
    checkId(s.id, 'service');
    if (typeof s.type !== 'string' || s.type.length > 30) fail('a service type must be a string of at most 30 characters');
    const ep = s.serviceEndpoint;
    if (typeof ep !== 'string' && !isObject(ep)) fail('serviceEndpoint must be a URI string or a non-array object');
  }
  checkUnique(services.map((s) => s.id as string), 'service');
}

function checkIds(ids: unknown): void {
  if (!Array.isArray(ids)) fail('ids must be an array');
  for (const id of ids) checkId(id, 'removed');
}

function checkPatch(patch: unknown): void {
  if (!isObject(patch)) fail('a patch must be an object');
  switch (patch.action) {
    case 'replace': {
      onlyKeys(patch, ['action', 'document'], 'a replace patch');
      if (!isObject(patch.document)) fail('a replace patch needs a document');
      onlyKeys(patch.document, ['publicKeys', 'services'], 'the document');
      if (patch.document.publicKeys !== undefined) checkPublicKeys(patch.document.publicKeys);
      if (patch.document.services !== undefined) checkServices(patch.document.services);
      return;
    }
    case 'add-public-keys':
      onlyKeys(patch, ['action', 'publicKeys'], 'an add-public-keys patch');
      return checkPublicKeys(patch.publicKeys);
    case 'add-services':
      onlyKeys(patch, ['action', 'services'], 'an add-services patch');
      return checkServices(patch.services);
    case 'remove-public-keys':
    case 'remove-services':
      onlyKeys(patch, ['action', 'ids'], `a ${patch.action} patch`);
      return checkIds(patch.ids);
    default:
      fail(`unknown patch action '${String(patch.action)}'`);
  }
}

/** Validates a create-operation delta; throws IdsyncError 'invalid_did' (reason 'invalid_delta'). */
export function validateIonDelta(delta: unknown): void {
  if (!isObject(delta)) fail('the delta must be an object');
  onlyKeys(delta, ['patches', 'updateCommitment'], 'the delta');
  if (typeof delta.updateCommitment !== 'string') fail('the delta needs an updateCommitment');
  if (!Array.isArray(delta.patches)) fail('the delta needs a patches array');
  delta.patches.forEach(checkPatch);
}

/** Applies validated patches in order to an empty document (Sidetree §DID State Patches). */
export function applyIonPatches(patches: Record<string, unknown>[]): IonDocumentModel {
  let keys: IonPublicKey[] = [];
  let services: IonService[] = [];
  const upsert = <T extends { id: string }>(list: T[], add: T[]): T[] => {
    const byId = new Map(list.map((x) => [x.id, x]));
    for (const x of add) byId.set(x.id, x);
    return [...byId.values()];
  };
  for (const patch of patches) {
    switch (patch.action) {
      case 'replace': {
        const doc = patch.document as IonDocumentModel;
        keys = [...(doc.publicKeys ?? [])];
        services = [...(doc.services ?? [])];
        break;
      }
      case 'add-public-keys':
        keys = upsert(keys, patch.publicKeys as IonPublicKey[]);
        break;
      case 'remove-public-keys':
        keys = keys.filter((k) => !(patch.ids as string[]).includes(k.id));
        break;
      case 'add-services':
        services = upsert(services, patch.services as IonService[]);
        break;
      case 'remove-services':
        services = services.filter((s) => !(patch.ids as string[]).includes(s.id));
        break;
    }
  }
  return { publicKeys: keys, services };
}
