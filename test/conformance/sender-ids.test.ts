// plaintext.id-unique judges the ids a sender gives its messages: two different messages with one
// id break it; the same message sent again does not (DIDComm v2.1 §Message Headers).
import { describe, expect, it } from 'vitest';
import { createSenderIdCheck } from '../../src/conformance/sender-ids.js';
import type { PlainMessage } from '../../src/didcomm/types.js';

const ping = (id: string, extra: Partial<PlainMessage> = {}): PlainMessage => ({ id, type: 'https://didcomm.org/trust-ping/2.0/ping', from: 'did:example:alice', body: { response_requested: true }, ...extra });

describe('plaintext.id-unique over the messages of one sender', () => {
  it('passes distinct ids and the same message sent again, whatever the order of its members', () => {
    const ids = createSenderIdCheck();
    expect(ids.check(ping('m-1'))).toMatchObject({ rule: 'plaintext.id-unique', ok: true, severity: 'error' });
    expect(ids.check(ping('m-2'))?.ok).toBe(true);
    const { body, ...rest } = ping('m-1');
    expect(ids.check({ body, ...rest } as PlainMessage)?.ok).toBe(true);
  });

  it('fails a second, different message with an id the sender already used', () => {
    const ids = createSenderIdCheck();
    ids.check(ping('m-1'));
    expect(ids.check(ping('m-1', { body: { response_requested: false } }))).toMatchObject({ ok: false, severity: 'error', detail: expect.stringContaining('m-1') });
  });

  it('keeps senders apart, names the sender when from is absent, and stays bounded', () => {
    const ids = createSenderIdCheck(2);
    ids.check(ping('m-1'));
    expect(ids.check(ping('m-1', { from: 'did:example:bob', body: {} }))?.ok).toBe(true);
    expect(ids.check(ping('m-9', { from: undefined }), 'did:example:carol#key-1')?.ok).toBe(true);
    expect(ids.size).toBe(2);
    expect(ids.check({ type: 'x', body: {} } as unknown as PlainMessage)).toBeUndefined();
  });
});
