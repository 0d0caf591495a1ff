import { describe, expect, it } from 'vitest';
import { checkTarget, parseChannel, parseDestinations } from '../../../../src/service/issuance/delivery/targets.js';

describe('invitation destinations', () => {
  it('accepts channel names in any case', () => {
    expect(parseChannel('Email')).toBe('EMAIL');
    expect(parseChannel('EMAIL')).toBe('EMAIL');
    expect(parseChannel('didcomm')).toBe('DIDCOMM');
    expect(parseChannel('Sms')).toBe('SMS');
    expect(parseChannel('fax')).toBeUndefined();
  });

  it('checks targets per channel and normalises them', () => {
    expect(checkTarget('DIDCOMM', 'did:ion:EiAbc:xyz')).toEqual({ target: 'did:ion:EiAbc:xyz' });
    expect(checkTarget('DIDCOMM', 'alice')).toHaveProperty('message');
    expect(checkTarget('EMAIL', 'Alice@Example.COM')).toEqual({ target: 'alice@example.com' });
    expect(checkTarget('EMAIL', 'not an email')).toHaveProperty('message');
    expect(checkTarget('SMS', '+49 151 1234-5678')).toEqual({ target: '+4915112345678' });
    expect(checkTarget('SMS', '015112345678')).toHaveProperty('message');
    expect(checkTarget('SMS', '+0123456789')).toHaveProperty('message');
  });

  it('combines destinations and fills the DIDCOMM target from the workflow', () => {
    const out = parseDestinations(
      [{ channel: 'DIDCOMM' }, { channel: 'Email', target: 'a@example.com' }, { channel: 'SMS', target: '+15551234567' }, { channel: 'EMAIL', target: 'A@example.com' }],
      { defaultDid: 'did:key:z6Mk' },
    );
    expect(out).toEqual([
      { channel: 'DIDCOMM', target: 'did:key:z6Mk' },
      { channel: 'EMAIL', target: 'a@example.com' },
      { channel: 'SMS', target: '+15551234567' },
    ]);
  });

  it('reports every bad destination as a field error', () => {
    let err: unknown;
    try {
      parseDestinations([{ channel: 'DIDCOMM' }, { channel: 'Email', target: 'nope' }, { channel: 'pigeon', target: 'x' }]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'invalid_destination' });
    expect((err as { details: { errors: { field: string }[] } }).details.errors.map((e) => e.field)).toEqual([
      'body/destinations/0/target',
      'body/destinations/1/target',
      'body/destinations/2/channel',
    ]);
    expect(() => parseDestinations([])).toThrow(expect.objectContaining({ code: 'invalid_destination' }));
    expect(() => parseDestinations(undefined)).toThrow(expect.objectContaining({ code: 'invalid_destination' }));
  });
});
