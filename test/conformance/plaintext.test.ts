import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPlaintext } from '../../src/conformance/plaintext.js';
import { checkMessage } from '../../src/conformance/registry.js';
import { errorsOf, type ConformanceResult } from '../../src/conformance/types.js';

const WACI = join(import.meta.dirname, '../../fixtures/waci-didcomm');
// Both flows' messages, as 'issuance/1.out-of-band.json', …
const waciFiles = (): string[] =>
  ['issuance', 'presentation'].flatMap((flow) => readdirSync(join(WACI, flow)).filter((n) => n.endsWith('.json')).map((n) => join(flow, n)));
const SPEC = join(import.meta.dirname, '../../fixtures/didcomm-v2-spec');

const good = {
  id: '1234567890',
  typ: 'application/didcomm-plain+json',
  type: 'https://example.com/protocols/lets_do_lunch/1.0/proposal',
  from: 'did:example:alice',
  to: ['did:example:bob'],
  created_time: 1516269022,
  expires_time: 1516385931,
  body: { messagespecificattribute: 'and its value' },
};

function failed(results: ConformanceResult[]): string[] {
  return results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);
}

describe('plaintext rules (DIDComm v2.1 §Message Headers)', () => {
  it('passes the spec example and every WACI-DIDComm message', () => {
    expect(failed(checkPlaintext(good))).toEqual([]);
    expect(failed(checkPlaintext(JSON.parse(readFileSync(join(SPEC, 'plaintext.json'), 'utf8'))))).toEqual([]);
    for (const f of waciFiles()) {
      const errors = errorsOf(checkMessage(JSON.parse(readFileSync(join(WACI, f), 'utf8'))));
      expect(errors, f).toEqual([]);
    }
  });

  it('warns about attachment fields written inside data (as one WACI vector does)', () => {
    const present = JSON.parse(readFileSync(join(WACI, 'presentation', '4.present-proof_present.json'), 'utf8'));
    expect(failed(checkPlaintext(present))).toEqual(['advice:plaintext.attachment-fields']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a missing id', { id: undefined }, 'error:plaintext.id'],
    ['a numeric id', { id: 42 }, 'error:plaintext.id'],
    ['an id with spaces', { id: 'a b' }, 'advice:plaintext.id-format'],
    ['a missing type', { type: undefined }, 'error:plaintext.type'],
    ['a type that is not a URI', { type: 'ping' }, 'error:plaintext.type'],
    ['a type URI without a version', { type: 'https://didcomm.org/trust-ping/ping' }, 'error:plaintext.type'],
    ['a wrong typ', { typ: 'application/json' }, 'error:plaintext.typ'],
    ['from with a fragment', { from: 'did:example:alice#key-1' }, 'error:plaintext.from'],
    ['from that is not a DID', { from: 'alice@example.org' }, 'error:plaintext.from'],
    ['to as a string', { to: 'did:example:bob' }, 'error:plaintext.to'],
    ['to holding a key id', { to: ['did:example:bob#key-1'] }, 'error:plaintext.to'],
    ['an empty thid', { thid: '' }, 'error:plaintext.thid'],
    ['a numeric pthid', { pthid: 7 }, 'error:plaintext.pthid'],
    ['created_time as a string', { created_time: '2024-01-01T00:00:00Z' }, 'advice:plaintext.created_time'],
    ['created_time in milliseconds', { created_time: 1516269022000, expires_time: undefined }, 'advice:plaintext.created_time'],
    ['a fractional expires_time', { expires_time: 1516385931.5 }, 'advice:plaintext.expires_time'],
    ['expires before created', { expires_time: 1516269021 }, 'advice:plaintext.expires-after-created'],
    ['a missing body (accepted since v2.1; sending one is advised)', { body: undefined }, 'advice:plaintext.body-present'],
    ['a body that is an array', { body: [] }, 'error:plaintext.body'],
    ['attachments that are not an array', { attachments: {} }, 'error:plaintext.attachments'],
    ['an attachment without data', { attachments: [{ id: 'a' }] }, 'error:plaintext.attachments'],
    ['an attachment with bad base64', { attachments: [{ data: { base64: '***' } }] }, 'error:plaintext.attachments'],
    ['links without a hash', { attachments: [{ data: { links: ['https://x.example/a'] } }] }, 'error:plaintext.attachment-links-hash'],
    // §Attachments: lastmod_time is "A hint about when the content in this attachment was last
    // modified", OPTIONAL and of no stated type; media_type and format are OPTIONAL too ...
    ['an ISO 8601 lastmod_time (a hint of no stated type)', { attachments: [{ id: 'a', lastmod_time: '2024-01-01T00:00:00Z', data: { json: {} } }] }, 'advice:plaintext.attachment-fields'],
    // ... but its id "MUST consist entirely of unreserved URI characters" (RFC 3986 §2.3).
    ['a numeric attachment id', { attachments: [{ id: 7, data: { json: {} } }] }, 'error:plaintext.attachment-id'],
    ['an attachment id with reserved characters', { attachments: [{ id: 'a/b?c', data: { json: {} } }] }, 'error:plaintext.attachment-id'],
    ['an attachment id that is an object', { attachments: [{ id: { x: 1 }, data: { json: {} } }] }, 'error:plaintext.attachment-id'],
    ['a byte_count as a string', { attachments: [{ id: 'a', byte_count: '12', data: { base64: 'AAAA' } }] }, 'advice:plaintext.attachment-fields'],
    ['a v1 @id attachment', { attachments: [{ '@id': 'a', data: { json: {} } }] }, 'advice:plaintext.attachment-fields'],
    ['ack that is not an array', { ack: 'm-1' }, 'advice:plaintext.ack'],
    ['an unknown return_route', { return_route: 'always' }, 'advice:plaintext.return_route'],
    ['from_prior that is not a JWT', { from_prior: 'nope' }, 'error:plaintext.from_prior'],
  ])('catches %s', (_, change, expected) => {
    const message: Record<string, unknown> = { ...good, ...change };
    for (const k of Object.keys(change)) if (change[k] === undefined) delete message[k];
    expect(failed(checkPlaintext(message))).toEqual([expected]);
  });

  it('lists every broken rule of a malformed plaintext: no type, a string created_time, a string to', () => {
    const { type: _, ...untyped } = good;
    expect(failed(checkPlaintext({ ...untyped, created_time: '2024-01-01T00:00:00Z', to: 'did:example:bob' }))).toEqual([
      'error:plaintext.type',
      'error:plaintext.to',
      'advice:plaintext.created_time',
    ]);
  });

  it('says a non-object is not a message and never throws', () => {
    for (const v of [null, 42, 'text', [good]]) expect(failed(checkPlaintext(v))).toEqual(['error:plaintext.json-object']);
  });

  it('accepts media types without the application/ prefix and DID URLs with paths in to', () => {
    expect(failed(checkPlaintext({ ...good, typ: 'didcomm-plain+json', to: ['did:web:example.com:u:bob/path?x=1'] }))).toEqual([]);
  });
});
