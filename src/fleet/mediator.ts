// The mediator of a mediated fleet run (`idsync fleet --mediated`): idsync's standalone mediator
// on 127.0.0.1, port 0, started in the coordinating thread for the run, its store where the
// embedded twin keeps its own (in memory, or a temporary LevelDB for runs too big for memory: it
// logs every message it forwards, some 60-90 KB per flow, and its thread's heap stops at about 4 GB);
// or a running mediator named by its invitation URL or DID (nothing to start or stop then).
// The one started here can also be reached over the fleet's link (link.ts): the twin's forwards
// then travel between threads as the direct wallets' messages do, without loopback sockets.
import { startMediator } from '../mediator/server.js';
import { openRunStore } from '../store/temporary.js';
import type { LinkHandler, LinkResponse } from './link.js';
import type { SocketAcceptor } from './link-socket.js';
import type { ServiceStoreKind } from './target.js';

export interface FleetMediator {
  /** What the wallets are given (createWallet's `mediator`). */
  invitationUrl: string;
  /**
   * The mediator started for the run: the URL it listens on, its HTTP answers without a socket,
   * and its WebSocket endpoint's part for the link's sockets (live mode without a socket).
   */
  local?: { url: string; serve: LinkHandler; accept: SocketAcceptor };
  /** Where the mediator started for the run keeps its queues and log (its folder when on disk, removed at close). */
  store?: { kind: ServiceStoreKind; dir?: string };
  close(): Promise<void>;
}

export async function fleetMediator(mediated: boolean | string | undefined, kind: ServiceStoreKind = 'memory'): Promise<FleetMediator | undefined> {
  if (!mediated) return undefined;
  if (typeof mediated === 'string') return { invitationUrl: mediated, close: async () => undefined };
  const { store, dir, close: closeStore } = await openRunStore(kind, 'idsync-fleet-mediator-');
  // A fleet's wallets all run on this machine: queues large enough that none refuses under load.
  const running = await startMediator({ store, policy: { maxQueue: 100_000 } }).catch(async (err) => {
    await closeStore();
    throw err;
  });
  const serve: LinkHandler = async (req) => {
    const r = await running.serve({ method: req.method, url: req.url, ...(req.body !== undefined ? { body: req.body } : {}), contentType: req.headers['content-type'] ?? null });
    const headers: Record<string, string> = { ...r.headers };
    if (r.body !== undefined) headers['content-type'] = r.contentType ?? 'application/octet-stream';
    return { status: r.status, headers, ...(r.body !== undefined ? { body: r.body } : {}) } satisfies LinkResponse;
  };
  return {
    invitationUrl: running.invitationUrl,
    local: { url: running.url, serve, accept: (socket) => running.attach(socket) },
    store: { kind, ...(dir !== undefined ? { dir } : {}) },
    async close() {
      await running.close();
      await closeStore();
    },
  };
}
