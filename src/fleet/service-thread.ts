// Starts the embedded twin in a worker thread (service-worker.ts) for a threaded fleet run:
// every busy thread is then a worker whose heap the fleet sizes (the main thread's is fixed
// when node starts), and this thread only coordinates. Each wallet thread gets a port of its
// own to the twin (linkPort).
import { MessageChannel, Worker, type MessagePort, type ResourceLimits } from 'node:worker_threads';
import type { EnvelopeEngine } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import type { FleetTarget, ServiceStoreKind } from './target.js';
import type { TargetInfo } from './target-info.js';
import type { MemorySample, ThreadStats } from './thread-stats.js';
import type { ServiceWorkerInput, ServiceWorkerRequest } from './service-worker.js';

export interface ServiceThread extends FleetTarget {
  /** A new link to the twin for one wallet thread (undefined when the wallets use HTTP). */
  linkPort(): MessagePort | undefined;
  /** What the twin's thread counted: resends (router/steps), how busy it was, its memory. */
  stats(): Promise<{ resends: Record<string, number>; thread: ThreadStats; memory: MemorySample[] }>;
}

export interface ServiceThreadOptions {
  envelopeEngine?: EnvelopeEngine;
  link: boolean;
  store: ServiceStoreKind;
  entry: { entry: string | URL; eval: boolean };
  execArgv: string[];
  resourceLimits?: ResourceLimits;
}

type Reply = { type: 'ready'; info: TargetInfo } | { type: 'stats'; resends: Record<string, number>; thread: ThreadStats; memory: MemorySample[] } | { type: 'closed'; error?: string } | { type: 'error'; code: string; message: string };

export async function startServiceThread(o: ServiceThreadOptions, start: (entry: string | URL, options: ConstructorParameters<typeof Worker>[1] & object) => Worker): Promise<ServiceThread> {
  const input: ServiceWorkerInput = { link: o.link, store: o.store, ...(o.envelopeEngine ? { envelopeEngine: o.envelopeEngine } : {}) };
  const w = start(o.entry.entry, { workerData: input, execArgv: o.execArgv, eval: o.entry.eval, ...(o.resourceLimits ? { resourceLimits: o.resourceLimits } : {}) });
  const waiting: Array<{ type: Reply['type']; resolve: (r: Reply) => void; reject: (e: Error) => void }> = [];
  let failed: Error | undefined;
  const fail = (e: Error) => {
    failed ??= e;
    for (const x of waiting.splice(0)) x.reject(e);
  };
  w.on('message', (m: Reply) => {
    if (m.type === 'error') return fail(new IdsyncError('fleet_worker_failed', `service thread: ${m.code}: ${m.message}`));
    const i = waiting.findIndex((x) => x.type === m.type);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(m);
  });
  w.on('error', (err) => fail(new IdsyncError('fleet_worker_failed', `service thread: ${err.message}`, { cause: err })));
  w.on('exit', (code) => fail(new IdsyncError('fleet_worker_failed', `service thread exited (${code})`)));
  const next = <T extends Reply['type']>(type: T) =>
    failed ? Promise.reject(failed) : new Promise<Extract<Reply, { type: T }>>((resolve, reject) => waiting.push({ type, resolve: resolve as (r: Reply) => void, reject }));
  const send = (m: ServiceWorkerRequest, transfer: MessagePort[] = []) => w.postMessage(m, transfer);

  let ready: Extract<Reply, { type: 'ready' }>;
  try {
    ready = await next('ready');
  } catch (err) {
    await w.terminate();
    throw err;
  }
  let closed = false;
  return {
    ...ready.info,
    linkPort() {
      if (!o.link) return undefined;
      const { port1, port2 } = new MessageChannel();
      send({ type: 'link', port: port1 }, [port1]);
      return port2;
    },
    async stats() {
      const s = next('stats');
      send({ type: 'stats' });
      const { resends, thread, memory } = await s;
      return { resends, thread, memory };
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        const done = next('closed');
        send({ type: 'close' });
        await done;
      } catch {
        // already gone: nothing left to close
      } finally {
        await w.terminate();
      }
    },
  };
}
