// Interop with an Identus 7 edge agent (@hyperledger/identus-sdk, a devDependency): the agent
// initialises with idsync's standalone mediator as its mediator (Agent.initialize({mediatorDID}):
// coordinate-mediation 2.0 mediate-request → grant, keylist-update for each new peer DID) and
// collects with Message Pickup 3.0, by polling (delivery-request without recipient_did) and in
// live mode (a WebSocket; pushes inside a `delivery`, confirmed with messages-received over HTTP).
// Messages go both ways through the mediator: an idsync sender's pack() wraps in forward for the
// agent's peer DID (its service names the mediator's DID); the agent's Mercury wraps in forward
// for an idsync party behind the same mediator. All over real sockets on 127.0.0.1.
// What the agent does not do, and where in the SDK that is decided, is in docs/mediation.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SDK from '@hyperledger/identus-sdk';
import { WebSocket } from 'ws';
import { requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore, type Store } from '../../src/store/store.js';
import { memoryPlutoStore } from './identus-pluto-store.js';
import { deliveryRequest, open, party, type Delivered, type Party } from './parties.js';

const BASIC = 'https://didcomm.org/basicmessage/2.0/message';
type IdentusMessage = { id: string; piuri: string; body: Record<string, unknown>; from?: { toString(): string } };
type Agent = ReturnType<typeof SDK.Agent.initialize>;

// The SDK opens its live-mode socket with the global WebSocket, which Node 20 does not have.
const g = globalThis as { WebSocket?: unknown };
const hadWebSocket = g.WebSocket !== undefined;
g.WebSocket ??= WebSocket;

let store: Store;
let m: RunningMediator;
const agents: Agent[] = [];
const parties: Party[] = [];
const inbound: Array<{ type?: string; transport: string; status: string }> = [];

beforeAll(async () => {
  store = await openStore();
  m = await startMediator({ store });
  m.agent.events.on('inbound', (e) => inbound.push(e));
});

afterAll(async () => {
  for (const a of agents) await a.stop().catch(() => undefined);
  for (const p of parties) await p.close();
  await m?.close();
  await store?.close();
  if (!hadWebSocket) delete g.WebSocket;
});

function identus(liveMode: boolean): Agent {
  const apollo = new SDK.Apollo();
  const pluto = new SDK.Pluto(memoryPlutoStore() as never, apollo);
  const agent = SDK.Agent.initialize({ mediatorDID: m.did, pluto, apollo, options: { experiments: { liveMode } } });
  agents.push(agent);
  return agent;
}

/** The first MESSAGE event (the SDK's Events.emit) holding a message that `match` accepts. */
function received(agent: Agent, match: (msg: IdentusMessage) => boolean, timeoutMs = 15_000): Promise<IdentusMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Identus agent received no matching message within ${timeoutMs} ms`)), timeoutMs);
    agent.addListener(SDK.ListenerKey.MESSAGE, (msgs: IdentusMessage[]) => {
      const hit = msgs.find(match);
      if (!hit) return;
      clearTimeout(timer);
      resolve(hit);
    });
  });
}

/** Resolves once the mediator holds nothing for `did`: checked now and after each messages-received it handles. */
async function emptied(did: string): Promise<void> {
  for (;;) {
    // Listening before looking: a messages-received handled meanwhile is not missed.
    let wake!: () => void;
    const next = new Promise<void>((resolve) => (wake = resolve));
    m.agent.events.on('pickup-received', wake);
    try {
      if ((await m.agent.mediator.queue.count(did)) === 0) return;
      await next;
    } finally {
      m.agent.events.off('pickup-received', wake);
    }
  }
}

function idsyncParty(o: Parameters<typeof party>[0] = {}): Party {
  const p = party(o);
  parties.push(p);
  return p;
}

describe('an Identus 7 edge agent with idsync\'s mediator', () => {
  let agent: Agent;
  let peer: string;

  it('initialises with the mediator: coordinate-mediation 2.0 mediate-request is granted, routing_did one DID', async () => {
    agent = identus(false);
    const granted = new Promise<{ party: string; version: string }>((resolve) => m.agent.events.once('mediation-granted', resolve));
    await agent.start();
    // StartMediator (edge-agent/didcomm/StartMediator.ts) sent mediate-request from a new peer DID
    // without services (ending .SW10); MediateGrant stored routingDID = Domain.DID.from(body.routing_did).
    const grant = await granted;
    expect(grant.version).toBe('2.0');
    expect(grant.party).toMatch(/^did:peer:2\..*\.SW10$/);
    const mediator = agent.connections.mediator!;
    expect(mediator.state).toBe(SDK.Connection.State.GRANTED);
    expect(mediator.asMediator().routingDID.toString()).toBe(m.did);
    expect(agent.currentMediatorDID?.toString()).toBe(m.did);
  });

  it('registers each new peer DID with keylist-update; the DID names the mediator as its endpoint', async () => {
    const updated = new Promise<{ updated: Array<{ recipientDid: string; result: string }> }>((resolve) => m.agent.events.once('keylist-updated', resolve));
    peer = (await agent.createNewPeerDID([], true)).toString();
    expect((await updated).updated).toEqual([{ recipientDid: peer, action: 'add', result: 'success' }]);
    expect((await m.agent.mediator.keylist.lookup(peer))?.recipientDid).toBe(peer);
    const doc = await agent.castor.resolveDID(peer);
    expect(doc.services.map((s) => s.serviceEndpoint.uri)).toEqual([m.did]);
  });

  it('picks up by polling a basicmessage and a trust-ping that an idsync sender wrapped in forward', async () => {
    // Polling every 100 ms instead of the SDK's 5 s (StartFetchingMessages: delivery-request {limit: 10}, no recipient_did).
    agent.stopFetchingMessages();
    await agent.startFetchingMessages(100);
    const sender = idsyncParty();
    const basic = received(agent, (msg) => msg.piuri === BASIC);
    const ping = received(agent, (msg) => msg.piuri === TRUST_PING.ping);
    await sender.router.send({ type: BASIC, body: { content: 'hello from idsync' } }, { to: peer });
    await sender.router.send({ type: TRUST_PING.ping, body: { response_requested: true } }, { to: peer });
    expect(await basic).toMatchObject({ body: { content: 'hello from idsync' } });
    expect((await basic).from?.toString()).toBe(sender.did);
    expect((await ping).from?.toString()).toBe(sender.did);
    // PickupDelivery (plugins/internal/didcomm/connection/PickupDelivery.ts) confirmed both: the queue is empty.
    await emptied(peer);
    expect(inbound.filter((e) => e.type?.endsWith('/messages-received')).length).toBeGreaterThan(0);
  });

  it('sends a basicmessage through the mediator to an idsync party behind it (Mercury wraps the forward)', async () => {
    const q = idsyncParty({ endpoint: m.did });
    await requestMediation(q.router, m.did, '2.0');
    await updateRecipients(q.router, m.did, [{ recipientDid: q.did, action: 'add' }]);
    const queued = new Promise((resolve) => m.agent.events.once('forward-queued', resolve));
    const msg = new SDK.BasicMessage({ content: 'hello from Identus' }, SDK.Domain.DID.fromString(peer), SDK.Domain.DID.fromString(q.did)).makeMessage();
    await agent.send(msg);
    await queued;
    const d = (await deliveryRequest(q, m.did)) as Delivered;
    const inner = await open(q, d.messages[0]!.packed);
    expect(inner).toMatchObject({ type: BASIC, from: peer, body: { content: 'hello from Identus' } });
  });

  it('in live mode gets a forwarded message pushed on its WebSocket inside a delivery, and confirms it', async () => {
    const live = identus(true);
    const changed = new Promise((resolve) => m.agent.events.once('live-delivery-changed', resolve));
    await live.start();
    // StartFetchingMessages opened a WebSocket to the mediator's ws:// service and sent live-delivery-change.
    await changed;
    const livePeer = (await live.createNewPeerDID([], true)).toString();
    const pushed = new Promise<{ queueIds: string[] }>((resolve) => m.agent.events.once('live-pushed', resolve));
    const basic = received(live, (msg) => msg.piuri === BASIC);
    await idsyncParty().router.send({ type: BASIC, body: { content: 'pushed' } }, { to: livePeer });
    expect((await pushed).queueIds).toHaveLength(1);
    expect((await basic).body).toMatchObject({ content: 'pushed' });
    await emptied(livePeer);
    expect(inbound.some((e) => e.type?.endsWith('/live-delivery-change') && e.transport === 'ws')).toBe(true);
  });
});
