import { describe, expect, it } from 'vitest';
import { checkInvitationUrl, inspectInvitationUrl } from '../../src/conformance/oob-url.js';
import type { ConformanceResult } from '../../src/conformance/types.js';
import { b64uEncode } from '../../src/encoding.js';
import { createInvitation, encodeInvitationUrl } from '../../src/protocols/out-of-band.js';

const invitation = createInvitation({ from: 'did:example:issuer', goal_code: 'streamlined-vc', id: 'inv-1' });

function failed(results: ConformanceResult[]): string[] {
  return results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);
}

describe('out-of-band URL rules', () => {
  it('passes a URL made by encodeInvitationUrl', () => {
    const url = encodeInvitationUrl('https://api.example.com/connect', invitation);
    expect(failed(checkInvitationUrl(url))).toEqual([]);
    expect(inspectInvitationUrl(url).invitation).toEqual(invitation);
  });

  it('passes the spec example URL (DIDComm v2 §Example Out-of-Band Message Encoding)', () => {
    // The spec's example invitation, whitespace removed; its attachment uses the v1 '@id'.
    const json = '{"type":"https://didcomm.org/out-of-band/2.0/invitation","id":"69212a3a-d068-4f9d-a2dd-4741bca89af3","from":"did:example:alice","body":{"goal_code":"","goal":""},"attachments":[{"@id":"request-0","media_type":"application/json","data":{"json":"<json of protocol message>"}}]}';
    const url = `https://example.com/path?_oob=${b64uEncode(json)}`;
    expect(failed(checkInvitationUrl(url))).toEqual(['advice:plaintext.attachment-fields']);
  });

  it.each<[string, string, string[]]>([
    ['a relative URL', '/connect?_oob=x', ['advice:oob.url']],
    ['plain http to a public host', `http://api.example.com/c?_oob=${b64uEncode(JSON.stringify(invitation))}`, ['advice:oob.url-scheme']],
    ['no _oob', 'https://api.example.com/c?x=1', ['advice:oob.param']],
    ['padded base64', `https://a.example/c?_oob=${Buffer.from(JSON.stringify(invitation)).toString('base64')}`, ['advice:oob.base64url']],
    ['JSON with whitespace', `https://a.example/c?_oob=${b64uEncode(JSON.stringify(invitation, null, 2))}`, ['advice:oob.compact-json']],
    ['undecodable _oob', 'https://a.example/c?_oob=***', ['advice:oob.base64url', 'advice:oob.decode']],
    ['not JSON', `https://a.example/c?_oob=${b64uEncode('hello')}`, ['advice:oob.json']],
    ['a message that is not an invitation', `https://a.example/c?_oob=${b64uEncode(JSON.stringify({ ...invitation, type: 'https://didcomm.org/trust-ping/2.0/ping' }))}`, ['advice:oob.type']],
    ['both _oob and _oobid', `https://a.example/c?_oobid=1&_oob=${b64uEncode(JSON.stringify(invitation))}`, ['advice:oob.param-both']],
    ['an empty _oobid', 'https://a.example/c?_oobid=', ['advice:oob.oobid']],
  ])('checks %s', (_, url, expected) => {
    expect(failed(checkInvitationUrl(url))).toEqual(expected);
  });

  it('gives the _oobid of a short URL', () => {
    expect(inspectInvitationUrl('https://a.example/c?_oobid=5f0e3ffb').oobid).toBe('5f0e3ffb');
  });
});
