import { describe, expect, it } from 'vitest';
import { IdsyncError } from '../../../src/errors.js';
import { memoryNetwork } from '../../../src/didcomm/transport/memory.js';
import { httpTransport, startHttpEndpoint } from '../../../src/didcomm/transport/http.js';
import { multiTransport } from '../../../src/didcomm/transport/index.js';
import type { Transport } from '../../../src/didcomm/types.js';
import { createPeerDid4 } from '../../../src/did/peer4.js';
import { encrypted, inbox, signed } from './helpers.js';

const ION_SHORT = `did:ion:EiA${'b'.repeat(43)}`;
const ION_LONG = `${ION_SHORT}:eyJkZWx0YSI6e319`;

describe('memory network', () => {
  it('delivers on a later turn of the event loop, not inside the sender', async () => {
    const net = memoryNetwork();
    let sending = false;
    const seen = inbox<boolean>();
    net.endpoint('memory://service', async () => seen.push(sending));
    const t = net.transport();
    sending = true;
    const p = t.send('memory://service', encrypted());
    sending = false;
    expect(await p).toEqual([]);
    expect(await seen.next()).toBe(false);
    expect(net.urls).toEqual(['memory://service']);
  });

  it('returns replies made while the handler runs', async () => {
    const net = memoryNetwork();
    net.endpoint('memory://service', async (_p, info) => {
      await info.reply(signed());
      await info.reply(encrypted(2));
    });
    expect(await net.transport().send('memory://service', encrypted(1), { returnRoute: true })).toEqual([signed(), encrypted(2)]);
  });

  it('sends later replies and pushes to a bound key to the live transport', async () => {
    const net = memoryNetwork();
    let later: ((p: string) => Promise<void>) | undefined;
    net.endpoint('memory://service', async (_p, info) => {
      info.bind(ION_LONG);
      later = info.reply;
    });
    const live = inbox();
    const wallet = net.transport({ onInbound: async (p) => live.push(p) });
    expect(await net.pushTo(ION_SHORT, encrypted(0))).toBe(false);
    await wallet.send('memory://service', encrypted(1), { returnRoute: true });
    await later!(encrypted(2));
    expect(await net.pushTo(ION_SHORT, encrypted(3))).toBe(true);
    expect(await live.next()).toBe(encrypted(2));
    expect(await live.next()).toBe(encrypted(3));
    await wallet.close();
    expect(await net.pushTo(ION_SHORT, encrypted(4))).toBe(false);
    await expect(wallet.send('memory://service', encrypted(5))).rejects.toMatchObject({ code: 'transport_unreachable' });
  });

  it('pushes to a did:peer:4 bound in one form when addressed in the other (DID Peer §Method 4)', async () => {
    const { did: long, shortDid } = createPeerDid4();
    const short = shortDid!;
    for (const [boundAs, pushedAs] of [[long, short], [short, long], [`${long}#key-1`, `${short}#key-1`]] as const) {
      const net = memoryNetwork();
      net.endpoint('memory://service', async (_p, info) => info.bind(boundAs));
      const live = inbox();
      const wallet = net.transport({ onInbound: async (p) => live.push(p) });
      await wallet.send('memory://service', encrypted(1), { returnRoute: true });
      expect(await net.pushTo(pushedAs, encrypted(2))).toBe(true);
      expect(await live.next()).toBe(encrypted(2));
      await wallet.close();
    }
  });

  it('refuses a late reply when the sender does not listen', async () => {
    const net = memoryNetwork();
    let later: ((p: string) => Promise<void>) | undefined;
    net.endpoint('memory://service', async (_p, info) => {
      later = info.reply;
    });
    await net.transport().send('memory://service', encrypted());
    await expect(later!(encrypted(2))).rejects.toMatchObject({ code: 'transport_reply_unavailable' });
  });

  it('reports unknown endpoints, other schemes, bad messages and handler errors with codes', async () => {
    const net = memoryNetwork();
    const t = net.transport();
    await expect(t.send('memory://nobody', encrypted())).rejects.toMatchObject({ code: 'transport_unreachable' });
    await expect(t.send('http://127.0.0.1/x', encrypted())).rejects.toMatchObject({ code: 'unsupported_scheme' });
    expect(() => net.endpoint('http://x', async () => {})).toThrow(expect.objectContaining({ code: 'unsupported_scheme' }));
    const ep = net.endpoint('memory://service', async (p) => {
      if (p === encrypted(1)) throw new IdsyncError('didcomm_malformed', 'bad');
      throw new Error('boom');
    });
    await expect(t.send('memory://service', 'nope')).rejects.toMatchObject({ code: 'transport_invalid_message' });
    await expect(t.send('memory://service', encrypted(1))).rejects.toMatchObject({ code: 'transport_rejected', details: { status: 400, problemCode: 'didcomm_malformed' } });
    await expect(t.send('memory://service', encrypted(2))).rejects.toMatchObject({ code: 'transport_rejected', details: { status: 500 } });
    ep.close();
    await expect(t.send('memory://service', encrypted())).rejects.toMatchObject({ code: 'transport_unreachable' });
  });
});

describe('multiTransport', () => {
  it('picks the transport by the endpoint scheme', async () => {
    const net = memoryNetwork();
    const got = inbox<string>();
    net.endpoint('memory://a', async () => got.push('memory'));
    const ep = await startHttpEndpoint({ handler: async () => got.push('http') });
    try {
      const all = multiTransport([httpTransport(), net.transport()]);
      expect(all.schemes).toEqual(['http', 'https', 'memory']);
      await all.send('memory://a', encrypted());
      await all.send(ep.url, encrypted());
      expect([await got.next(), await got.next()]).toEqual(['memory', 'http']);
      await expect(all.send('wss://example.com/x', encrypted())).rejects.toMatchObject({ code: 'unsupported_scheme' });
      await expect(all.send('not a url', encrypted())).rejects.toMatchObject({ code: 'unsupported_scheme' });
      await all.close();
    } finally {
      await ep.close();
    }
  });

  it('closes every transport it holds', async () => {
    const closed: string[] = [];
    const fake = (s: string): Transport => ({ schemes: [s], send: async () => [], close: async () => void closed.push(s) });
    await multiTransport([fake('a'), fake('b')]).close();
    expect(closed).toEqual(['a', 'b']);
  });
});
