// Invitation destinations (service-interface.md "send-invitation"): a channel and a target,
// a DID for DIDCOMM, an e-mail address for Email, a phone number for SMS. Channel names are
// accepted in any case (`Email`, `EMAIL`; vendor-facts); targets are checked and normalised.
import { IdsyncError } from '../../../errors.js';
import type { OutboxChannel } from '../invitation-outbox.js';

export type Channel = OutboxChannel;

export interface DestinationInput {
  channel?: unknown;
  target?: unknown;
}

export interface Destination {
  channel: Channel;
  target: string;
}

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

// W3C DID Core §3.1: did:<method-name>:<method-specific-id>; method names are lowercase
// letters and digits, ids are idchars (ALPHA / DIGIT / . - _ / pct-encoded) and colons.
const DID = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})$/;
// A pragmatic address check (RFC 5321 is far looser): local@domain.tld, no spaces.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
// ITU-T E.164: '+', a country code not starting with 0, at most 15 digits in all.
const E164 = /^\+[1-9]\d{6,14}$/;

export function isDid(s: string): boolean {
  return s.length <= 8192 && DID.test(s);
}

export function isEmailAddress(s: string): boolean {
  return s.length <= 254 && EMAIL.test(s);
}

/** Strips spaces, dashes, dots and parentheses people write inside numbers. */
export function normalizePhone(s: string): string {
  return s.replace(/[\s\-().]/g, '');
}

export function isE164(s: string): boolean {
  return E164.test(s);
}

/** `DIDCOMM`, `Email`, `email`, `SMS`… → the canonical channel, or undefined. */
export function parseChannel(value: unknown): Channel | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toUpperCase();
  if (v === 'DIDCOMM' || v === 'EMAIL' || v === 'SMS') return v;
  return undefined;
}

/** Checks one target; returns the normalised target or an error message. */
export function checkTarget(channel: Channel, target: string): { target: string } | { message: string } {
  const t = target.trim();
  switch (channel) {
    case 'DIDCOMM':
      return isDid(t) ? { target: t } : { message: 'must be a DID (did:<method>:<id>)' };
    case 'EMAIL':
      return isEmailAddress(t) ? { target: t.toLowerCase() } : { message: 'must be an e-mail address' };
    case 'SMS': {
      const p = normalizePhone(t);
      return isE164(p) ? { target: p } : { message: 'must be a phone number in E.164 form (+ and 7 to 15 digits)' };
    }
  }
}

/**
 * Validates a destinations array; DIDCOMM without a target uses `defaultDid` (the workflow's
 * userDID). Throws IdsyncError 'invalid_destination' with `errors: [{field, code, message}]`
 * (fields as JSON pointers into the request, `body/destinations/0/target`, like http/problem-handlers.ts).
 * Duplicates (same channel and target) collapse to one.
 */
export function parseDestinations(input: unknown, options: { defaultDid?: string } = {}): Destination[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(input) || input.length === 0) {
    errors.push({ field: 'body/destinations', code: 'required', message: 'destinations must be a non-empty array' });
  } else if (input.length > 20) {
    errors.push({ field: 'body/destinations', code: 'too_many', message: 'at most 20 destinations' });
  }
  const out: Destination[] = [];
  if (errors.length === 0) {
    (input as unknown[]).forEach((raw, i) => {
      const d = (raw ?? {}) as DestinationInput;
      const channel = parseChannel(d.channel);
      if (!channel) {
        errors.push({ field: `body/destinations/${i}/channel`, code: 'invalid_channel', message: 'channel must be DIDCOMM, EMAIL (Email) or SMS' });
        return;
      }
      let target = d.target;
      if ((target === undefined || target === null || target === '') && channel === 'DIDCOMM' && options.defaultDid) target = options.defaultDid;
      if (typeof target !== 'string' || target.trim() === '') {
        const why = channel === 'DIDCOMM' ? 'target is required for DIDCOMM unless the workflow names a userDID' : `target is required for ${channel}`;
        errors.push({ field: `body/destinations/${i}/target`, code: 'required', message: why });
        return;
      }
      const checked = checkTarget(channel, target);
      if ('message' in checked) {
        errors.push({ field: `body/destinations/${i}/target`, code: 'invalid_target', message: checked.message });
        return;
      }
      if (!out.some((o) => o.channel === channel && o.target === checked.target)) out.push({ channel, target: checked.target });
    });
  }
  if (errors.length > 0) {
    throw new IdsyncError('invalid_destination', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { details: { errors } });
  }
  return out;
}
