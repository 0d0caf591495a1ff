// Out-of-band URL rules (DIDComm v2 §Out Of Band Messages, §Standard Message Encoding,
// §Short URL Message Retrieval): `https://<domain>/<path>?_oob=<base64url(JSON)>`, or
// `?_oobid=<id>` for a short URL fetched with HTTP GET.
import { parseMessageType } from '../didcomm/message.js';
import { b64uDecodeText } from '../encoding.js';
import { isPlainObject } from './plaintext.js';
import { createRuleRegistry, type RuleRegistry } from './registry.js';
import { check, fail, pass, type ConformanceResult } from './types.js';

const L = 'oob' as const;

// Any 2.x invitation (DIDComm v2 §Semver Rules for Protocols).
const INVITATION_MAJOR_KEY = 'https://didcomm.org/out-of-band/2/invitation';

export interface InvitationUrlInspection {
  results: ConformanceResult[];
  /** The decoded `_oob` JSON when it decoded. */
  invitation?: unknown;
  /** The `_oobid` value of a short URL. */
  oobid?: string;
  url?: URL;
}

/** Whitespace outside JSON strings (the encoding SHOULD drop it to keep URLs short). */
function hasInsignificantWhitespace(json: string): boolean {
  return /\s/.test(json.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
}

/** Rules on an invitation message: plaintext headers, the invitation type and body. */
export function checkInvitation(invitation: unknown, registry: RuleRegistry = createRuleRegistry()): ConformanceResult[] {
  if (!isPlainObject(invitation)) return [fail(L, 'oob.invitation-object', 'the invitation is not a JSON object')];
  const parts = typeof invitation.type === 'string' ? parseMessageType(invitation.type) : null;
  const isInvitation = parts !== null && parts.majorKey === INVITATION_MAJOR_KEY;
  return [
    check(L, 'oob.type', isInvitation, `type must be https://didcomm.org/out-of-band/2.x/invitation, got ${String(invitation.type)}`),
    ...registry.check(invitation),
  ];
}

/** Parses and checks an invitation URL without fetching anything. Never throws. */
export function inspectInvitationUrl(input: string, registry?: RuleRegistry): InvitationUrlInspection {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { results: [fail(L, 'oob.url', 'not an absolute URL')] };
  }
  const results: ConformanceResult[] = [pass(L, 'oob.url')];
  results.push(check(L, 'oob.url-scheme', url.protocol === 'https:' || url.hostname === 'localhost' || url.hostname === '127.0.0.1', 'invitation URLs should use https'));
  const oob = url.searchParams.get('_oob');
  const oobid = url.searchParams.get('_oobid');
  if (oob === null && oobid === null) return { results: [...results, fail(L, 'oob.param', 'the URL has neither _oob nor _oobid')], url };
  if (oob !== null && oobid !== null) results.push(fail(L, 'oob.param-both', 'the URL has both _oob and _oobid'));
  else results.push(pass(L, 'oob.param'));
  if (oob === null) {
    const ok = oobid!.trim().length > 0;
    return { results: [...results, check(L, 'oob.oobid', ok, '_oobid is empty')], oobid: ok ? oobid!.trim() : undefined, url };
  }
  // A '+' of standard base64 left unescaped in a query string arrives as a space.
  const value = oob.trim().replace(/ /g, '+');
  results.push(check(L, 'oob.base64url', /^[A-Za-z0-9_-]+$/.test(value), '_oob should be base64url without padding (RFC 4648 §5); accepted anyway'));
  let text: string;
  try {
    text = b64uDecodeText(value);
  } catch {
    return { results: [...results, fail(L, 'oob.decode', '_oob is not base64url')], url };
  }
  let invitation: unknown;
  try {
    invitation = JSON.parse(text);
  } catch {
    return { results: [...results, fail(L, 'oob.json', '_oob does not decode to JSON')], url };
  }
  results.push(pass(L, 'oob.json'));
  results.push(check(L, 'oob.compact-json', !hasInsignificantWhitespace(text), 'whitespace should be removed from the JSON before encoding'));
  return { results: [...results, ...checkInvitation(invitation, registry)], invitation, url };
}

export function checkInvitationUrl(url: string, registry?: RuleRegistry): ConformanceResult[] {
  return inspectInvitationUrl(url, registry).results;
}
