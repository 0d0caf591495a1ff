// Standard Webhooks signatures (https://www.standardwebhooks.com/, spec "Signature scheme"):
// HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}` with the secret's bytes,
// sent as `v1,<base64>`; secrets are `whsec_` + base64 of 24–64 random bytes.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { IdsyncError } from '../../errors.js';

export const SECRET_PREFIX = 'whsec_';

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** A new `whsec_` secret; `bytes` lets tests pass fixed key material. */
export function generateWebhookSecret(bytes: Uint8Array = randomBytes(24)): string {
  return SECRET_PREFIX + Buffer.from(bytes).toString('base64');
}

/** The HMAC key of a secret (the `whsec_` prefix is optional on input). */
export function secretKey(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new IdsyncError('invalid_request', 'webhook secret is not base64 after whsec_');
  const key = Buffer.from(b64, 'base64');
  // Standard Webhooks: secrets are between 24 and 64 bytes.
  if (key.length < 24 || key.length > 64) {
    throw new IdsyncError('invalid_request', 'webhook secret must decode to 24..64 bytes');
  }
  return key;
}

export function isValidWebhookSecret(secret: string): boolean {
  try {
    secretKey(secret);
    return secret.startsWith(SECRET_PREFIX);
  } catch {
    return false;
  }
}

/** `v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`; timestamp in whole seconds. */
export function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSec}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export function webhookHeaders(secret: string, id: string, timestampSec: number, body: string): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': signWebhook(secret, id, timestampSec, body),
  };
}

export interface VerifyOptions {
  /** Seconds since the epoch; the receiver's clock. */
  nowSec: number;
  /** Allowed clock skew, seconds (Standard Webhooks suggests 5 minutes). */
  toleranceSec?: number;
}

/**
 * Receiver-side check, for testbed receivers: throws IdsyncError 'webhook_signature_invalid'
 * unless one of the space-separated `v1,` signatures matches and the timestamp is fresh.
 */
export function verifyWebhook(secret: string, headers: Record<string, string | string[] | undefined>, body: string, options: VerifyOptions): void {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const ts = one('webhook-timestamp');
  const sigs = one('webhook-signature');
  if (!id || !ts || !sigs) throw new IdsyncError('webhook_signature_invalid', 'missing webhook-id, webhook-timestamp or webhook-signature');
  const tsNum = Number(ts);
  if (!/^\d+$/.test(ts)) throw new IdsyncError('webhook_signature_invalid', 'webhook-timestamp is not an integer');
  const tolerance = options.toleranceSec ?? 300;
  if (Math.abs(options.nowSec - tsNum) > tolerance) throw new IdsyncError('webhook_signature_invalid', 'webhook-timestamp outside the tolerance');
  const expected = Buffer.from(signWebhook(secret, id, tsNum, body).slice(3), 'base64');
  for (const sig of sigs.split(' ')) {
    const [version, value] = sig.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const got = Buffer.from(value, 'base64');
    if (got.length === expected.length && timingSafeEqual(got, expected)) return;
  }
  throw new IdsyncError('webhook_signature_invalid', 'no matching webhook signature');
}
