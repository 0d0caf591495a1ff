// address-class.ts: every form an address can take is judged by where it leads. Ranges from
// RFC 6890 (special-purpose registries), RFC 6052 / RFC 8215 (NAT64), RFC 3056 (6to4), RFC 4380
// (Teredo), RFC 4291 §2.5.5 (IPv4-mapped/-compatible) and the cloud providers' metadata docs.
import { describe, expect, it } from 'vitest';
import { classifyAddress, classifyHostName, type AddressClass } from '../../src/net/address-class.js';
import { classRefusal } from '../../src/net/address-policy.js';

const ADDRESSES: [string, AddressClass][] = [
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.1.2', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'private'],
  ['169.254.169.254', 'metadata'],
  ['169.254.1.1', 'link-local'],
  ['100.100.100.200', 'metadata'],
  ['192.0.0.192', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  // IPv6
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::', 'unspecified'],
  ['2606:4700::1111', 'public'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fec0::1', 'private'],
  ['fd00:ec2::254', 'metadata'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  // IPv4 inside IPv6: judged by the IPv4 address reached
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:8.8.8.8', 'public'],
  ['::127.0.0.1', 'loopback'],
  ['::ffff:0:10.0.0.1', 'private'],
  ['64:ff9b::169.254.169.254', 'metadata'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b:1::a9fe:a9fe', 'metadata'],
  ['64:ff9b:1::808:808', 'private'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', 'public'],
  // Teredo: the client address is the last 32 bits inverted (~169.254.169.254 = 5601:5601)
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
];

describe('classifyAddress', () => {
  for (const [address, cls] of ADDRESSES) {
    it(`${address} is ${cls}`, () => expect(classifyAddress(address)).toBe(cls));
  }

  it('is undefined for anything that is not an IP address', () => {
    for (const s of ['example.com', '1.2.3', '1.2.3.256', '::g', '', '01.2.3.4.5']) expect(classifyAddress(s)).toBeUndefined();
  });
});

describe('classifyHostName (before any lookup)', () => {
  it('classifies literals, metadata names and localhost', () => {
    expect(classifyHostName('127.0.0.1')).toBe('loopback');
    expect(classifyHostName('[fd00:ec2::254]')).toBe('metadata');
    expect(classifyHostName('metadata.google.internal')).toBe('metadata');
    expect(classifyHostName('METADATA.google.internal.')).toBe('metadata');
    expect(classifyHostName('localhost')).toBe('loopback');
    expect(classifyHostName('wallet.localhost')).toBe('loopback');
  });

  it('sees through wildcard-DNS names that embed a forbidden IPv4 address (nip.io, sslip.io style)', () => {
    expect(classifyHostName('169.254.169.254.nip.io')).toBe('metadata');
    expect(classifyHostName('169-254-169-254.sslip.io')).toBe('metadata');
    expect(classifyHostName('app.127.0.0.1.nip.io')).toBe('loopback');
    expect(classifyHostName('app-10-0-0-1.nip.io')).toBe('private');
  });

  it('leaves other names (and names embedding public addresses) to a lookup', () => {
    expect(classifyHostName('example.com')).toBeUndefined();
    expect(classifyHostName('8.8.8.8.nip.io')).toBeUndefined();
    expect(classifyHostName('v1-2-3.example.com')).toBeUndefined();
  });
});

describe('classRefusal', () => {
  it('refuses metadata, link-local, unspecified, multicast and reserved always; loopback and private as allowed', () => {
    const all = { allowLoopback: true, allowPrivate: true };
    for (const cls of ['metadata', 'link-local', 'unspecified', 'multicast', 'reserved'] as const) expect(classRefusal(cls, all)).toBeTruthy();
    expect(classRefusal('public', {})).toBeUndefined();
    expect(classRefusal('loopback', all)).toBeUndefined();
    expect(classRefusal('loopback', {})).toMatch(/loopback/);
    expect(classRefusal('private', all)).toBeUndefined();
    expect(classRefusal('private', { allowLoopback: true })).toMatch(/private/);
  });
});
