import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  isValidWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
} from '../../../src/service/webhooks/signature.js';

const secret = generateWebhookSecret(new Uint8Array(32).fill(7));

describe('Standard Webhooks signatures', () => {
  it('generates whsec_ secrets of 24 random bytes', () => {
    const s = generateWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(isValidWebhookSecret(s)).toBe(true);
    expect(isValidWebhookSecret('whsec_short')).toBe(false);
    expect(isValidWebhookSecret('not-a-secret')).toBe(false);
  });

  it('produces signatures the reference implementation verifies', () => {
    const body = JSON.stringify({ type: 'DATA_SYNC', action: null, event: 'DATA_SYNC_COMPLETED', params: { cptyDID: 'did:x' } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, 'evt-1', ts, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const parsed = new Webhook(secret).verify(body, { ...headers });
    expect(parsed).toEqual(JSON.parse(body));
    // And ours equals theirs byte for byte.
    expect(signWebhook(secret, 'evt-1', ts, body)).toBe(new Webhook(secret).sign('evt-1', new Date(ts * 1000), body));
  });

  it('verifies its own signatures and rejects a tampered body', () => {
    const body = '{"a":1}';
    const headers = webhookHeaders(secret, 'evt-2', 1_700_000_000, body);
    expect(() => verifyWebhook(secret, { ...headers }, body, { nowSec: 1_700_000_010 })).not.toThrow();
    expect(() => verifyWebhook(secret, { ...headers }, '{"a":2}', { nowSec: 1_700_000_010 })).toThrow(
      expect.objectContaining({ code: 'webhook_signature_invalid' }),
    );
    expect(() => verifyWebhook(secret, { ...headers }, body, { nowSec: 1_700_001_000 })).toThrow(
      expect.objectContaining({ code: 'webhook_signature_invalid' }),
    );
  });

  it('accepts any of several space-separated signatures (secret rotation)', () => {
    const other = generateWebhookSecret(new Uint8Array(24).fill(1));
    const body = '{}';
    const sig = `${signWebhook(other, 'e', 100, body)} ${signWebhook(secret, 'e', 100, body)}`;
    expect(() =>
      verifyWebhook(secret, { 'webhook-id': 'e', 'webhook-timestamp': '100', 'webhook-signature': sig }, body, { nowSec: 100 }),
    ).not.toThrow();
  });
});
