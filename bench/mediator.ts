// Forward plus pickup through idsync's mediator, per message, over real sockets on 127.0.0.1: a
// sender's authcrypted ping wrapped in a forward and POSTed (pack() wraps it: the recipient DID's
// service names the mediator's DID), then collected by the recipient, either
//   polling:  delivery-request (limit 1) over HTTP → delivery → messages-received → status, or
//   live:     pushed on the recipient's WebSocket inside a delivery → messages-received on it → status.
// One message at a time, the two modes interleaved in rounds so that both see the same machine
// state; medians and p95 of the time from the sender's POST to the mediator's answer to
// messages-received. The mediator keeps its LevelDB on disk (a temp folder) unless --memory.
// Run: npm run bench:mediator [-- --messages 300 --warmup 30 --memory --json]; with --json the
// last line is one JSON document.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/clock.js';
import { createPeerDid } from '../src/did/peer.js';
import { createResolver, documentResolver } from '../src/did/resolver.js';
import type { DocumentResolver } from '../src/did/types.js';
import { sameDid } from '../src/didcomm/message.js';
import { memorySecrets } from '../src/didcomm/secrets.js';
import { httpTransport } from '../src/didcomm/transport/http.js';
import { wsTransport } from '../src/didcomm/transport/ws.js';
import type { PlainMessage } from '../src/didcomm/types.js';
import { startMediator } from '../src/mediator/server.js';
import { basicProtocols } from '../src/protocols/basic.js';
import { mediationClientProtocol, requestMediation, updateRecipients } from '../src/protocols/coordinate-mediation.js';
import { buildDeliveryRequest, buildLiveDeliveryChange, buildMessagesReceived, messagePickupProtocol, type QueuedMessage } from '../src/protocols/message-pickup.js';
import { TRUST_PING } from '../src/protocols/trust-ping.js';
import { createRouter, transportOutbound, type Router } from '../src/router/router.js';
import { openStore } from '../src/store/store.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const json = argv.includes('--json');
const memory = argv.includes('--memory');
const messages = Number(arg('messages') ?? 300);
const warmup = Number(arg('warmup') ?? 30);
const ROUND = 10;

const resolver = documentResolver(createResolver());

interface Client {
  did: string;
  router: Router;
  /** Resolves with the next delivery (asked for or pushed) and with statuses by thid. */
  nextDelivery(): Promise<{ message: PlainMessage; messages: QueuedMessage[] }>;
  status(thid: string): Promise<void>;
  close(): Promise<void>;
}

function client(endpoint?: string): Client {
  const created = createPeerDid(endpoint ? { endpoint } : {});
  const resolve: DocumentResolver = async (did) => (sameDid(did, created.did) ? created.document : resolver(did));
  const deliveries: Array<(d: { message: PlainMessage; messages: QueuedMessage[] }) => void> = [];
  const statuses = new Map<string, () => void>();
  let router: Router;
  const ws = wsTransport({ onInbound: async (packed, info) => void (await router.receive(packed, { transport: 'ws', ...(info.reply ? { reply: info.reply } : {}), redelivery: true })) });
  router = createRouter({ envelope: { resolve, secrets: memorySecrets(created.secrets) }, send: transportOutbound([httpTransport(), ws]), clock: systemClock, myDids: [created.did], reportDuplicates: false });
  router.use(
    ...basicProtocols(),
    mediationClientProtocol('2.0'),
    messagePickupProtocol({ delivery: (ctx, d) => deliveries.shift()?.({ message: ctx.message, messages: d.messages }), status: (ctx) => statuses.get(ctx.message.thid ?? '')?.() }, ['recipient']),
  );
  return {
    did: created.did,
    router,
    nextDelivery: () => new Promise((resolve) => deliveries.push(resolve)),
    status: (thid) => new Promise((resolve) => statuses.set(thid, resolve)),
    close: () => ws.close(),
  };
}

const dir = memory ? undefined : await mkdtemp(join(os.tmpdir(), 'idsync-bench-mediator-'));
const store = await openStore(dir ? { path: join(dir, 'store') } : {});
const m = await startMediator({ store });
const wsEndpoint = `${m.url.replace(/^http/, 'ws')}/didcomm`;

/** A recipient: a party granted mediation, and one DID behind the mediator it registered. */
async function recipient(): Promise<{ party: Client; did: string }> {
  const party = client();
  const behind = createPeerDid({ endpoint: m.did });
  // What is delivered for the DID behind stays packed: the bench measures the mediator's path, not opening it.
  await requestMediation(party.router, m.did, '2.0');
  await updateRecipients(party.router, m.did, [{ recipientDid: behind.did, action: 'add' }]);
  return { party, did: behind.did };
}

const sender = client();
const polling = await recipient();
const live = await recipient();
const liveChange = buildLiveDeliveryChange({ to: m.did, liveDelivery: true }, { clock: systemClock });
const liveOn = live.party.status(liveChange.id);
await live.party.router.send(liveChange, { to: m.did, via: wsEndpoint });
await liveOn;

async function viaPolling(): Promise<number> {
  const t0 = performance.now();
  await sender.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: polling.did });
  const req = buildDeliveryRequest({ to: m.did, limit: 1 }, { clock: systemClock });
  const delivered = polling.party.nextDelivery();
  await polling.party.router.send(req, { to: m.did });
  const d = await delivered;
  const ack = buildMessagesReceived({ to: m.did, messageIds: d.messages.map((x) => x.id) }, { clock: systemClock });
  const done = polling.party.status(ack.id);
  await polling.party.router.send(ack, { to: m.did });
  await done;
  return performance.now() - t0;
}

async function viaLive(): Promise<number> {
  const t0 = performance.now();
  const pushed = live.party.nextDelivery();
  await sender.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: live.did });
  const d = await pushed;
  const ack = buildMessagesReceived({ to: m.did, messageIds: d.messages.map((x) => x.id) }, { clock: systemClock });
  const done = live.party.status(ack.id);
  await live.party.router.send(ack, { to: m.did, via: wsEndpoint });
  await done;
  return performance.now() - t0;
}

const times = { polling: [] as number[], live: [] as number[] };
// CPU time of this process (sender, mediator and recipient all run here) per mode: what the
// machine's other load does not inflate, unlike the wall-clock latencies.
const cpuUs = { polling: 0, live: 0 };
const started = performance.now();
for (let done = 0; done < warmup + messages; done += ROUND) {
  for (const [mode, run] of [['polling', viaPolling], ['live', viaLive]] as const) {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < ROUND; i++) {
      const ms = await run();
      if (done >= warmup) times[mode].push(ms);
    }
    const cpu = process.cpuUsage(cpu0);
    if (done >= warmup) cpuUs[mode] += cpu.user + cpu.system;
  }
}
const wallMs = performance.now() - started;

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const stats = (xs: number[], us: number) => ({ messages: xs.length, medianMs: +q(xs, 0.5).toFixed(2), p95Ms: +q(xs, 0.95).toFixed(2), perSecond: +(1000 / q(xs, 0.5)).toFixed(1), cpuMsPerMessage: +(us / 1000 / xs.length).toFixed(2) });
const result = { polling: stats(times.polling, cpuUs.polling), live: stats(times.live, cpuUs.live) };
const ratio = +(result.polling.medianMs / result.live.medianMs).toFixed(2);

const lines = [
  '',
  `idsync mediator: forward + pickup per message, node ${process.version}, ${os.cpus().length} CPU(s), store ${memory ? 'in memory' : 'LevelDB on disk'}; ${messages} messages per mode after ${warmup} of warm-up, modes interleaved in rounds of ${ROUND}`,
  `  polling (HTTP delivery-request, messages-received):  median ${result.polling.medianMs} ms, p95 ${result.polling.p95Ms} ms (${result.polling.perSecond}/s one at a time), CPU ${result.polling.cpuMsPerMessage} ms per message`,
  `  live    (WebSocket push, messages-received on it):    median ${result.live.medianMs} ms, p95 ${result.live.p95Ms} ms (${result.live.perSecond}/s one at a time), CPU ${result.live.cpuMsPerMessage} ms per message`,
  `  (CPU: this process, where the sender, the mediator and the recipient all run)`,
  `  live is ${ratio}x polling's speed per message; wall ${(wallMs / 1000).toFixed(1)} s`,
  '',
];
process.stdout.write(lines.join('\n') + '\n');
if (json) process.stdout.write(JSON.stringify({ bench: 'mediator', store: memory ? 'memory' : 'leveldb', messagesPerMode: messages, warmup, ...result, livePerPollingSpeed: ratio, wallMs: Math.round(wallMs) }) + '\n');

await sender.close();
await polling.party.close();
await live.party.close();
await m.close();
await store.close();
if (dir) await rm(dir, { recursive: true, force: true });
