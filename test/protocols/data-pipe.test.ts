import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { errorsOf } from '../../src/conformance/types.js';
import { createIonDid } from '../../src/did/ion.js';
import { createRouter, type Router, type RouterResult } from '../../src/router/router.js';
import type { PlainMessage, UnpackMetadata } from '../../src/didcomm/types.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import {
  DATA_PIPE,
  DATA_PIPE_GOAL_CODE,
  DATA_PIPE_PIURI,
  DATA_PIPE_SERVICE,
  DATA_PIPE_WALLET,
  buildDataPipeClose,
  buildDataPipeRequest,
  buildEstablished,
  checkDataPipeRequestSender,
  createDataPipeInvitation,
  dataPipeProtocol,
  parseDataPipeClose,
  parseDataPipeRequest,
  parseEstablished,
} from '../../src/protocols/data-pipe.js';
import { problemFromError, type ParsedProblem } from '../../src/protocols/report-problem.js';
import { advanceThread as advance, nextState, startThread } from '../../src/protocols/thread-state.js';
import { testNetwork, type Network } from './parties.js';
import { stubContext, stubPack, stubUnpack } from './stub-envelope.js';

/** In these tests every message received comes from the DID its envelope proved: its own `from`. */
const advanceThread: typeof advance = (machine, record, direction, message, sender) =>
  advance(machine, record, direction, message, sender ?? (direction === 'receive' ? message.from : undefined));

const clock = new ManualClock(Date.parse('2025-03-01T10:00:00Z'));
const deps = { clock, ids: sequentialIds('dp') };
const wallet = createIonDid();
const SERVICE = 'did:web:127.0.0.1%3A8080';

function request(overrides: Partial<PlainMessage> = {}): PlainMessage {
  return { ...buildDataPipeRequest({ from: wallet.did, to: SERVICE, invitationId: 'inv-1', consentAt: '2025-03-01T10:00:00Z', label: 'My wallet' }, deps), ...overrides };
}

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return { code: (err as { code: string }).code, problem: problemFromError(err).code };
  }
  return undefined;
};

describe('data-pipe 1.0 messages', () => {
  it('invites with goal_code idsync.data-pipe from the service DID', () => {
    const inv = createDataPipeInvitation({ from: SERVICE, id: 'inv-1' }, deps);
    expect(inv).toMatchObject({ type: 'https://didcomm.org/out-of-band/2.0/invitation', id: 'inv-1', from: SERVICE, body: { goal_code: DATA_PIPE_GOAL_CODE, goal: 'Connect', accept: ['didcomm/v2'] } });
  });

  it('builds a request that starts its own thread under the invitation and parses it back', () => {
    const m = request();
    expect(m).toMatchObject({ type: DATA_PIPE.request, from: wallet.did, to: [SERVICE], thid: m.id, pthid: 'inv-1', body: { consent: { granted: true, at: '2025-03-01T10:00:00Z' }, label: 'My wallet' } });
    expect(parseDataPipeRequest(m)).toEqual({ id: m.id, thid: m.id, invitationId: 'inv-1', from: wallet.did, consentAt: '2025-03-01T10:00:00Z', label: 'My wallet' });
  });

  it('rejects malformed requests with message_invalid_body naming the rule', () => {
    const cases: Array<[Partial<PlainMessage>, string]> = [
      [{ body: {} }, 'data-pipe.request.consent'],
      [{ body: { consent: { granted: false, at: '2025-03-01T10:00:00Z' } } }, 'data-pipe.request.consent'],
      [{ body: { consent: { granted: true, at: 'yesterday' } } }, 'data-pipe.request.consent'],
      [{ thid: 'other' }, 'data-pipe.request.thid'],
      [{ pthid: undefined }, 'data-pipe.request.pthid'],
      [{ body: { consent: { granted: true, at: '2025-03-01T10:00:00Z' }, label: 7 } }, 'data-pipe.request.label'],
    ];
    for (const [overrides, ruleName] of cases) {
      const m = request(overrides);
      expect(() => parseDataPipeRequest(m)).toThrow(expect.objectContaining({ code: 'message_invalid_body', details: { failures: [expect.objectContaining({ rule: ruleName })] } }));
    }
    expect(codeOf(() => parseDataPipeRequest(request({ body: {} })))?.problem).toBe('e.m.msg.invalid-body');
    expect(codeOf(() => parseDataPipeRequest({ ...request(), type: DATA_PIPE.close }))?.code).toBe('message_invalid_body');
  });

  it('builds and parses established and close', () => {
    const est = buildEstablished({ from: SERVICE, to: wallet.shortDid!, thid: 'r-1', did: wallet.did, shortDid: wallet.shortDid!, establishedAt: '2025-03-01T10:00:01Z' }, deps);
    expect(parseEstablished(est)).toEqual({ thid: 'r-1', did: wallet.did, shortDid: wallet.shortDid, establishedAt: '2025-03-01T10:00:01Z' });
    expect(() => parseEstablished({ ...est, body: { ...est.body, did: 'nope' } })).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    expect(() => parseEstablished({ ...est, thid: undefined })).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    const close = buildDataPipeClose({ from: wallet.shortDid!, to: SERVICE, thid: 'r-1', reason: 'user revoked' }, deps);
    expect(parseDataPipeClose(close)).toEqual({ thid: 'r-1', reason: 'user revoked' });
    expect(parseDataPipeClose(buildDataPipeClose({ from: SERVICE, to: wallet.did, thid: 'r-1' }, deps))).toEqual({ thid: 'r-1' });
  });

  it('requires an authcrypted request from the long form of the sender key’s DID', () => {
    const kid = `${wallet.did}#key-2`;
    const authcrypt = { encrypted: true, authenticated: true, encryptedFromKid: kid } satisfies Partial<UnpackMetadata>;
    expect(() => checkDataPipeRequestSender(request(), authcrypt)).not.toThrow();
    expect(codeOf(() => checkDataPipeRequestSender(request(), { encrypted: true, authenticated: false }))).toEqual({ code: 'data_pipe_not_authenticated', problem: 'e.p.trust.data-pipe.not-authenticated' });
    expect(codeOf(() => checkDataPipeRequestSender(request(), { ...authcrypt, encryptedFromKid: `${createIonDid().did}#key-2` }))?.code).toBe('data_pipe_not_authenticated');
    expect(codeOf(() => checkDataPipeRequestSender(request({ from: wallet.shortDid }), { ...authcrypt, encryptedFromKid: `${wallet.shortDid}#key-2` }))).toEqual({ code: 'data_pipe_short_form', problem: 'e.p.msg.data-pipe.short-form' });
  });
});

describe('data-pipe 1.0 states', () => {
  it('walks the wallet through request-sent, established (idempotent) and closed', () => {
    const req = request();
    let rec = startThread(DATA_PIPE_WALLET, 'send', req);
    expect(rec).toMatchObject({ thid: req.id, state: 'request-sent', peer: SERVICE, pthid: 'inv-1', role: 'requester' });
    const est = buildEstablished({ from: SERVICE, to: wallet.did, thid: req.id, did: wallet.did, shortDid: wallet.shortDid!, establishedAt: '2025-03-01T10:00:01Z' }, deps);
    rec = advanceThread(DATA_PIPE_WALLET, rec, 'receive', est);
    rec = advanceThread(DATA_PIPE_WALLET, rec, 'receive', { ...est, id: 'again' });
    expect(rec.state).toBe('established');
    rec = advanceThread(DATA_PIPE_WALLET, rec, 'send', buildDataPipeClose({ from: wallet.did, to: SERVICE, thid: req.id }, deps));
    expect(rec.state).toBe('closed');
    expect(codeOf(() => advanceThread(DATA_PIPE_WALLET, rec, 'receive', { ...est, id: 'late' }))).toEqual({ code: 'unexpected_message', problem: 'e.p.msg.unexpected' });
  });

  it('refuses an established before any request, and messages from another DID or thread', () => {
    expect(codeOf(() => nextState(DATA_PIPE_WALLET, 'invitation-received', `receive:established`))?.code).toBe('unexpected_message');
    const req = request();
    const rec = startThread(DATA_PIPE_SERVICE, 'receive', req);
    expect(rec).toMatchObject({ state: 'established', peer: wallet.did });
    // The same wallet in short form is the same peer; another DID is not.
    expect(advanceThread(DATA_PIPE_SERVICE, rec, 'receive', { ...req, id: 'r-2', from: wallet.shortDid }).state).toBe('established');
    expect(codeOf(() => advanceThread(DATA_PIPE_SERVICE, rec, 'receive', { ...req, id: 'r-3', from: createIonDid().did }))).toEqual({ code: 'unknown_thread', problem: 'e.p.msg.unknown-thread' });
    expect(codeOf(() => advanceThread(DATA_PIPE_SERVICE, rec, 'receive', { ...req, id: 'r-4', thid: 'r-4' }))?.code).toBe('unknown_thread');
    // A problem report (pthid = the thread) abandons it.
    const problem = { id: 'p-1', type: 'https://didcomm.org/report-problem/2.0/problem-report', pthid: req.id, from: wallet.did, body: { code: 'e.p.me' } };
    expect(advanceThread(DATA_PIPE_SERVICE, rec, 'receive', problem).state).toBe('abandoned');
  });
});

describe('data-pipe 1.0 over routers', () => {
  let net: Network | undefined;
  afterEach(async () => {
    await net?.close();
    net = undefined;
  });

  it('establishes over real authcrypt envelopes between a did:ion wallet and the service', async () => {
    net = testNetwork();
    const service = await net.party('service');
    const walletParty = await net.party('wallet', { method: 'ion' });
    const seen: string[] = [];
    service.router.use(
      ...basicProtocols(),
      dataPipeProtocol({
        request: async (ctx, req) => {
          seen.push(req.from);
          await ctx.reply(buildEstablished({ from: service.did, to: req.from, thid: req.thid, did: req.from, shortDid: walletParty.created.shortDid!, establishedAt: '2025-03-01T10:00:01Z' }, { clock: net!.clock }));
        },
      }),
    );
    walletParty.router.use(...basicProtocols(), dataPipeProtocol({ established: (ctx, e) => void ctx.emit('established', e) }, ['requester']));
    const established = walletParty.router.waitFor<{ did: string; thid: string }>('established');
    const inv = createDataPipeInvitation({ from: service.did }, { clock: net.clock });
    const sent = await walletParty.router.send(buildDataPipeRequest({ from: walletParty.did, to: service.did, invitationId: inv.id, consentAt: '2025-03-01T10:00:00Z' }, { clock: net.clock }));
    expect(await established).toMatchObject({ did: walletParty.did, thid: sent.message.id });
    expect(seen).toEqual([walletParty.did]);
    expect(service.router.protocols().find((p) => p.piuri === DATA_PIPE_PIURI)).toMatchObject({ goalCodes: [DATA_PIPE_GOAL_CODE] });
  });

  it('answers a short-form or unauthenticated request with the data-pipe problem code', async () => {
    const c = new ManualClock();
    let a: Router, b: Router;
    const results: RouterResult[] = [];
    const make = (name: string, did: string, deliver: (p: string) => Promise<void>) =>
      createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock: c, ids: sequentialIds(name), myDids: [did], send: async (p) => void (await deliver(p)) });
    a = make('w', wallet.shortDid!, async (p) => void results.push(await b.receive(p)));
    b = make('s', SERVICE, async (p) => void (await a.receive(p)));
    const problems: ParsedProblem[] = [];
    a.use(...basicProtocols({ reportProblem: { onProblem: (p) => void problems.push(p) } }));
    b.use(...basicProtocols(), dataPipeProtocol({ request: () => undefined }));
    const short = buildDataPipeRequest({ from: wallet.shortDid!, to: SERVICE, invitationId: 'inv-1', consentAt: '2025-03-01T10:00:00Z' }, { clock: c });
    await a.send(short);
    await a.send({ ...short, id: 'anon-1', thid: 'anon-1', from: wallet.did }, { mode: 'anoncrypt' });
    expect(results.map((r) => r.problemCode)).toEqual(['e.p.msg.data-pipe.short-form', 'e.p.trust.data-pipe.not-authenticated']);
    expect(problems[0]).toMatchObject({ code: 'e.p.msg.data-pipe.short-form', pthid: short.id });
    // Conformance refuses a body that breaks the rules before any handler runs.
    await a.send({ ...short, id: 'bad-1', thid: 'bad-1', from: wallet.did, body: {} }, { unchecked: true });
    expect(results[2]).toMatchObject({ status: 'rejected', problemCode: 'e.m.msg.invalid-body' });
    expect(errorsOf(b.conformance.check(request())).length).toBe(0);
  });
});
