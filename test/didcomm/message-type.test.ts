// Message type URIs (DIDComm Messaging v2.1 §Message Type URI): parts, and the shared parse.
import { describe, expect, it } from 'vitest';
import { parseMessageType, parsePiuri } from '../../src/didcomm/message.js';

describe('parseMessageType', () => {
  it('splits a type into its doc URI, protocol, version and name', () => {
    expect(parseMessageType('https://didcomm.org/trust-ping/2.0/ping')).toEqual({
      docUri: 'https://didcomm.org/', protocol: 'trust-ping', version: '2.0', major: 2, minor: 0, name: 'ping',
      piuri: 'https://didcomm.org/trust-ping/2.0', majorKey: 'https://didcomm.org/trust-ping/2/ping',
    });
    // §Semver Rules for Protocols: 2.1 matches 2.0 by its major key.
    expect(parseMessageType('https://didcomm.org/trust-ping/2.1/ping')?.majorKey).toBe('https://didcomm.org/trust-ping/2/ping');
    expect(parseMessageType('not a type')).toBeNull();
    expect(parseMessageType('https://didcomm.org/trust-ping/two/ping')).toBeNull();
    // A header a peer left out or sent as another JSON type is not a type.
    for (const bad of [undefined, null, 42, {}, ['https://didcomm.org/trust-ping/2.0/ping']]) expect(parseMessageType(bad as unknown as string)).toBeNull();
  });

  it('gives the same frozen parts for a type read again, which no caller can change', () => {
    const a = parseMessageType('https://didcomm.org/basicmessage/2.0/message');
    const b = parseMessageType(`https://didcomm.org/basicmessage/2.0/${'message'}`);
    expect(b).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(() => {
      (a as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect(parseMessageType('https://didcomm.org/basicmessage/2.0/message')?.name).toBe('message');
  });

  it('parses as before when thousands of made-up types and very long ones pass through', () => {
    for (let i = 0; i < 3000; i++) expect(parseMessageType(`https://example.org/p${i}/1.${i}/m`)?.minor).toBe(i);
    const long = `https://example.org/${'a/'.repeat(5000)}proto/1.0/msg`;
    expect(parseMessageType(long)?.docUri).toBe(`https://example.org/${'a/'.repeat(5000)}`);
    expect(parseMessageType(`${long}!`)).toBeNull();
    expect(parseMessageType('https://didcomm.org/trust-ping/2.0/ping')?.piuri).toBe('https://didcomm.org/trust-ping/2.0');
    expect(parsePiuri('https://didcomm.org/trust-ping/2.0')).toEqual({ docUri: 'https://didcomm.org/', protocol: 'trust-ping', version: '2.0', major: 2, minor: 0, piuri: 'https://didcomm.org/trust-ping/2.0' });
  });
});
