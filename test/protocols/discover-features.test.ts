import { afterEach, describe, expect, it } from 'vitest';
import { DIDCOMM_V2_VERSION } from '../../src/router/router.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { DISCOVER_FEATURES, answerQueries, discoverFeatures, discoverFeaturesProtocol } from '../../src/protocols/discover-features.js';
import { OUT_OF_BAND_PIURI, outOfBandProtocol } from '../../src/protocols/out-of-band.js';
import { createFeatureRegistry, featuresOf, matchesPattern } from '../../src/protocols/registry.js';
import { REPORT_PROBLEM_PIURI } from '../../src/protocols/report-problem.js';
import { TRUST_PING_PIURI } from '../../src/protocols/trust-ping.js';
import { testNetwork, type Network } from './parties.js';

let net: Network;
afterEach(async () => net?.close());

const ids = (features: { id: string }[]) => features.map((f) => f.id).sort();

describe('feature registry', () => {
  it('matches * anywhere and nothing else as a wildcard', () => {
    expect(matchesPattern('https://didcomm.org/tictactoe/1.*', 'https://didcomm.org/tictactoe/1.0')).toBe(true);
    expect(matchesPattern('https://didcomm.org/tictactoe/1.*', 'https://didcomm.org/tictactoe/2.0')).toBe(false);
    expect(matchesPattern('*', 'anything')).toBe(true);
    expect(matchesPattern('https://didcomm.org/*/2.0', 'https://didcomm.org/trust-ping/2.0')).toBe(true);
    // '.' and '?' are literal.
    expect(matchesPattern('a.c', 'abc')).toBe(false);
    expect(matchesPattern('a?c', 'abc')).toBe(false);
    // Pieces in order, not overlapping the ends.
    expect(matchesPattern('a*b*c', 'aXbYc')).toBe(true);
    expect(matchesPattern('a*b*c', 'acb')).toBe(false);
    expect(matchesPattern('ab*ba', 'aba')).toBe(false);
    expect(matchesPattern('**', '')).toBe(true);
    expect(matchesPattern('a**', 'a')).toBe(true);
  });

  it('matches a pattern of many wildcards at once (a regular expression of it backtracked for minutes)', () => {
    const started = performance.now();
    const id = 'https://didcomm.org/messagepickup/3.0'.repeat(20);
    expect(matchesPattern('*'.repeat(5000) + 'x', id)).toBe(false);
    expect(matchesPattern('********x', 'https://didcomm.org/trust-ping/2.0')).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('merges roles when a feature is added twice', () => {
    const r = createFeatureRegistry([{ 'feature-type': 'protocol', id: 'p', roles: ['a'] }]);
    r.add({ 'feature-type': 'protocol', id: 'p', roles: ['b', 'a'] });
    expect(r.list()).toEqual([{ 'feature-type': 'protocol', id: 'p', roles: ['a', 'b'] }]);
    r.remove('protocol', 'p');
    expect(r.has('protocol', 'p')).toBe(false);
  });

  it('ignores unrecognised feature types in queries', () => {
    const available = [{ 'feature-type': 'colour', id: 'blue' }, { 'feature-type': 'protocol', id: 'x' }];
    expect(answerQueries([{ 'feature-type': 'colour', match: '*' }], available)).toEqual([]);
    expect(answerQueries([{ 'feature-type': 'protocol', match: '*' }, { 'feature-type': 'protocol', match: 'x' }], available)).toHaveLength(1);
  });
});

describe('discover-features 2.0', () => {
  it('discloses only the protocols registered on the router, with their roles', async () => {
    net = testNetwork();
    const asker = await net.party('asker');
    const agent = await net.party('agent');
    asker.router.use(...basicProtocols());
    agent.router.use(...basicProtocols());

    const all = await discoverFeatures(asker.router, agent.did, [{ 'feature-type': 'protocol', match: 'https://didcomm.org/*' }]);
    expect(ids(all)).toEqual(['https://didcomm.org/discover-features/2.0', REPORT_PROBLEM_PIURI, TRUST_PING_PIURI].sort());
    expect(all.find((f) => f.id === TRUST_PING_PIURI)?.roles).toEqual(['sender', 'receiver']);
    expect(ids(all)).not.toContain(OUT_OF_BAND_PIURI);

    // Registering a protocol changes the answer; nothing is hard-coded.
    agent.router.use(outOfBandProtocol());
    const oob = await discoverFeatures(asker.router, agent.did, [{ 'feature-type': 'protocol', match: 'https://didcomm.org/out-of-band/2.*' }]);
    expect(ids(oob)).toEqual([OUT_OF_BAND_PIURI]);

    const none = await discoverFeatures(asker.router, agent.did, [{ 'feature-type': 'protocol', match: 'https://didcomm.org/tictactoe/1.*' }]);
    expect(none).toEqual([]);
  });

  it('discloses goal codes of registered protocols, the DIDComm version and headers it honours', async () => {
    net = testNetwork();
    const asker = await net.party('asker');
    const agent = await net.party('agent');
    asker.router.use(...basicProtocols());
    agent.router.use(...basicProtocols(), { piuri: 'https://didcomm.org/issue-credential/3.0', roles: ['issuer'], goalCodes: ['streamlined-vc'], handlers: {} });
    const features = await discoverFeatures(asker.router, agent.did, [
      { 'feature-type': 'goal-code', match: '*' },
      { 'feature-type': 'didcomm-version', match: '*' },
      { 'feature-type': 'header', match: 'return_route' },
    ]);
    expect(features).toEqual(
      expect.arrayContaining([
        { 'feature-type': 'goal-code', id: 'streamlined-vc' },
        { 'feature-type': 'didcomm-version', id: DIDCOMM_V2_VERSION },
        { 'feature-type': 'header', id: 'return_route' },
      ]),
    );
    expect(features).toHaveLength(3);
  });

  it('lets the responder disclose selectively', async () => {
    net = testNetwork();
    const asker = await net.party('asker');
    const agent = await net.party('agent');
    asker.router.use(...basicProtocols());
    agent.router.use(...basicProtocols({ discoverFeatures: { disclose: (features) => features.filter((f) => f.id === TRUST_PING_PIURI) } }));
    const features = await discoverFeatures(asker.router, agent.did, [{ 'feature-type': 'protocol', match: '*' }]);
    expect(ids(features)).toEqual([TRUST_PING_PIURI]);
  });

  it('answers queries threaded to the query message, and rejects queries without a queries array', async () => {
    net = testNetwork();
    const asker = await net.party('asker');
    const agent = await net.party('agent');
    asker.router.use(...basicProtocols());
    agent.router.use(discoverFeaturesProtocol(), ...basicProtocols().filter((p) => p.piuri === REPORT_PROBLEM_PIURI));
    const disclosed = asker.router.waitFor<{ message: { thid?: string } }>('disclose');
    const sent = await asker.router.send({ type: DISCOVER_FEATURES.queries, body: { queries: [{ 'feature-type': 'protocol', match: '*' }] } }, { to: agent.did });
    expect((await disclosed).message.thid).toBe(sent.message.id);

    const problem = asker.router.waitFor<{ problem: { code: string } }>('problem');
    await asker.router.send({ type: DISCOVER_FEATURES.queries, body: {} }, { to: agent.did, unchecked: true });
    expect((await problem).problem.code).toBe('e.m.msg.invalid-body');
  });

  it('builds the feature list from the router alone', () => {
    const list = featuresOf({ protocols: () => [{ piuri: 'https://example.org/p/1.0', messageTypes: [] }] }).list();
    expect(ids(list)).toEqual(['https://example.org/p/1.0', 'return_route', DIDCOMM_V2_VERSION].sort());
  });
});
