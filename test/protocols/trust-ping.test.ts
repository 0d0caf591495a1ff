import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { errorsOf } from '../../src/conformance/types.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { TRUST_PING, createPing, createPingResponse, ping, trustPingProtocol } from '../../src/protocols/trust-ping.js';
import { testNetwork, type Network } from './parties.js';

let net: Network;
afterEach(async () => net?.close());

describe('trust-ping 2.0', () => {
  it('builds a ping that asks for a response and a response threaded to it', () => {
    const deps = { clock: new ManualClock(), ids: sequentialIds('t') };
    const p = createPing({ to: 'did:example:bob', from: 'did:example:alice' }, deps);
    expect(p).toMatchObject({ id: 't-1', type: TRUST_PING.ping, to: ['did:example:bob'], body: { response_requested: true } });
    expect(createPingResponse(p, deps, 'did:example:bob')).toMatchObject({ type: TRUST_PING.pingResponse, thid: 't-1', to: ['did:example:alice'] });
    expect(createPing({ responseRequested: false }, deps).body.response_requested).toBe(false);
  });

  it('pings from a did:ion wallet to a did:peer agent and back, authcrypted over an in-memory network', async () => {
    net = testNetwork();
    const wallet = await net.party('wallet', { method: 'ion' });
    const agent = await net.party('agent');
    wallet.router.use(...basicProtocols());
    agent.router.use(...basicProtocols());

    const { ping: sent, response } = await ping(wallet.router, agent.did);
    expect(response.thid).toBe(sent.id);
    expect(response.from).toBe(agent.did);

    const [pingIn, responseOut] = await agent.log.list();
    expect(pingIn).toMatchObject({ direction: 'in', type: TRUST_PING.ping, mode: 'authcrypt', result: 'handled', from: wallet.did });
    expect(responseOut).toMatchObject({ direction: 'out', type: TRUST_PING.pingResponse, mode: 'authcrypt', result: 'sent', thid: sent.id });
    // Real envelopes from didcomm-node meet every MUST the conformance rules check.
    expect(errorsOf(pingIn.conformance as never)).toEqual([]);
    const responseIn = (await wallet.log.list({ direction: 'in' }))[0];
    expect(responseIn.result).toBe('handled');
    expect(errorsOf(responseIn.conformance as never)).toEqual([]);
    expect(responseIn.conformance?.map((c) => c.rule)).toEqual(expect.arrayContaining(['envelope.from-matches-sender', 'envelope.jwe-apv', 'plaintext.id']));
  });

  it('answers over the return route when the ping asks for it', async () => {
    net = testNetwork();
    const wallet = await net.party('wallet');
    const agent = await net.party('agent');
    wallet.router.use(...basicProtocols());
    agent.router.use(...basicProtocols());
    const sent = await wallet.router.send({ type: TRUST_PING.ping, body: {}, return_route: 'all' }, { to: agent.did });
    expect(sent.replies).toHaveLength(1);
    expect(sent.replies[0]).toMatchObject({ status: 'handled', message: { type: TRUST_PING.pingResponse, thid: sent.message.id } });
    expect((await agent.log.list({ direction: 'out' }))[0].transport).toBe('return-route');
  });

  it('reports an unsupported protocol back to a pinger that lacks trust-ping', async () => {
    net = testNetwork();
    const wallet = await net.party('wallet');
    const agent = await net.party('agent');
    wallet.router.use(...basicProtocols());
    agent.router.use(...basicProtocols().filter((p) => !p.piuri.includes('trust-ping')));
    await expect(ping(wallet.router, agent.did)).rejects.toMatchObject({ code: 'problem_reported', details: { problem: { code: 'e.p.msg.unsupported' } } });
  });

  it('calls the hooks of the protocol module', async () => {
    net = testNetwork();
    const pings: string[] = [];
    const a = await net.party('a');
    const b = await net.party('b');
    a.router.use(...basicProtocols());
    b.router.use(trustPingProtocol({ onPing: (m) => void pings.push(m.id) }));
    const { ping: sent } = await ping(a.router, b.did, { mode: 'anoncrypt-authcrypt' });
    expect(pings).toEqual([sent.id]);
    expect((await b.log.list())[0].mode).toBe('anoncrypt-authcrypt');
  });
});
