import { describe, expect, it } from 'vitest';
import * as idsync from '../../src/index.js';

describe('the package entry point', () => {
  it('exports both sides and the layers below them as functions', () => {
    for (const name of ['createService', 'createWallet', 'startMediator', 'requestMediation', 'createIonDid', 'createResolver', 'pack', 'unpack', 'packFromPrior', 'openStore', 'issueCredential', 'verifyCredential', 'parseInvitationUrl']) {
      expect(typeof (idsync as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('exports the error catalogue and its lookups', () => {
    expect(idsync.httpStatusOf('user_not_found')).toBe(404);
    expect(idsync.problemCodeOf('duplicate_message')).toBe('e.p.msg.duplicate');
    expect(idsync.isErrorCode(new idsync.IdsyncError('store_locked', 'x').code)).toBe(true);
    expect(idsync.ERRORS.store_locked.meaning).toMatch(/another process/);
  });

  it('creates an ion DID that its resolver resolves offline', async () => {
    const created = idsync.createIonDid({ endpoint: 'http://127.0.0.1:1/didcomm' });
    const result = await idsync.createResolver().resolve(created.did);
    expect(result.didDocument?.id).toBe(created.did);
    expect(result.didDocumentMetadata.equivalentId).toEqual([created.shortDid]);
  });

  it('creates a did:peer:4 whose long form its resolver resolves offline', async () => {
    const created = idsync.createPeerDid4({ endpoint: 'http://127.0.0.1:1/didcomm' });
    expect(idsync.peer4ShortForm(created.did)).toBe(created.shortDid);
    const result = await idsync.createResolver().resolve(created.did);
    expect(result.didDocument?.keyAgreement).toEqual([`${created.did}#key-1`]);
    expect(result.didDocumentMetadata.equivalentId).toEqual([created.shortDid]);
  });
});
