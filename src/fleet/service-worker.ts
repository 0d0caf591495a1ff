// The embedded twin in a worker thread of its own (service-thread.ts starts it): it answers each
// wallet thread over the link port it is given (link.ts) and, at the end, tells what it counted
// (resends, how busy it was, its memory) before it closes.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { EnvelopeEngine } from '../didcomm/types.js';
import { toIdsyncError } from '../errors.js';
import { resendTally } from '../router/steps/names.js';
import { portEnd, type LinkEnd } from './link.js';
import { resendsSince, threadFigures } from './runner.js';
import { startEmbeddedTarget, type ServiceStoreKind } from './target.js';
import { measureThread } from './thread-stats.js';

export interface ServiceWorkerInput {
  envelopeEngine?: EnvelopeEngine;
  /** Wallets reach the twin over link ports (else over HTTP, at its URL). */
  link: boolean;
  store: ServiceStoreKind;
}

export type ServiceWorkerRequest = { type: 'link'; port: MessagePort } | { type: 'stats' } | { type: 'close' };

async function main(input: ServiceWorkerInput): Promise<void> {
  const target = await startEmbeddedTarget({ ...(input.envelopeEngine ? { envelopeEngine: input.envelopeEngine } : {}), link: input.link, store: input.store });
  const before = new Map(resendTally);
  const measured = measureThread('service');
  const ends: LinkEnd[] = [];
  parentPort!.on('message', (m: ServiceWorkerRequest) => {
    if (m.type === 'link' && target.link) {
      const link = target.link;
      const end: LinkEnd = portEnd(m.port, link.serve, (prefix) => link.wallets.add(prefix, end.call));
      ends.push(end);
    } else if (m.type === 'stats') {
      parentPort!.postMessage({ type: 'stats', resends: resendsSince(before), ...threadFigures(measured()) });
    } else if (m.type === 'close') {
      for (const end of ends) end.close();
      target.close().then(
        () => parentPort!.postMessage({ type: 'closed' }),
        (err: unknown) => parentPort!.postMessage({ type: 'closed', error: toIdsyncError(err).message }),
      );
    }
  });
  parentPort!.postMessage({ type: 'ready', info: { url: target.url, did: target.did, credentials: target.credentials, embedded: true } });
}

main(workerData as ServiceWorkerInput).catch((err) => {
  const e = toIdsyncError(err);
  parentPort!.postMessage({ type: 'error', code: e.code, message: e.message });
});
