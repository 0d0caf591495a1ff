// A fleet worker thread: one event loop running its share of the wallets (runner.ts) against the
// target, posting progress every half second and its results (encoded HDR histograms) at the end.
import { parentPort, workerData } from 'node:worker_threads';
import { toIdsyncError } from '../errors.js';
import { runShard } from './runner.js';
import { loadScenario, type ScenarioRef } from './scenario-ref.js';
import { clientFor } from './target-info.js';
import type { WorkerInput } from './fleet.js';
import { startWalletPool, type WalletPool } from './wallet-pool.js';
import { portEnd } from './link.js';

async function main(input: WorkerInput): Promise<void> {
  const scenario = await loadScenario(input.scenario as ScenarioRef);
  // The link's end here answers the twin's messages to our wallets (once the pool exists).
  let pool: WalletPool | undefined;
  const link = input.link ? portEnd(input.link, (req) => pool!.deliver(req)) : undefined;
  // And the end of the link to the mediator started for the run, when there is one (it asks nothing of us).
  const mediatorLink = input.mediatorLink ? portEnd(input.mediatorLink.port, () => Promise.reject(new Error('the wallets serve nothing to the mediator'))) : undefined;
  pool = await startWalletPool({
    ...(input.envelopeEngine ? { envelopeEngine: input.envelopeEngine } : {}), serviceUrl: input.target.url, ...(link ? { serviceLink: link.call } : {}),
    ...(input.mediator ? { mediator: input.mediator } : {}),
    ...(mediatorLink && input.mediatorLink ? { mediatorLink: { url: input.mediatorLink.url, call: mediatorLink.call, open: mediatorLink.open } } : {}),
  });
  link?.hello(pool.endpointPrefix);
  const stop = new AbortController();
  parentPort!.on('message', (m: { type?: string }) => {
    if (m?.type === 'abort') stop.abort();
  });
  let result: Awaited<ReturnType<typeof runShard>>;
  try {
    result = await runShard(input.plan, {
      scenario,
      pool,
      client: clientFor(input.target, pool.fetch),
      serviceDid: input.target.did,
      signal: stop.signal,
      onProgress: (p) => parentPort!.postMessage({ type: 'progress', progress: p }),
    });
  } finally {
    await pool.close();
    link?.close();
    mediatorLink?.close();
  }
  // Sent once the pool is closed: the coordinator ends this thread when the result comes, which
  // before the close left the pages' temporary folder (idle wallets paged out to disk) behind.
  parentPort!.postMessage({ type: 'result', result });
}

main(workerData as WorkerInput).catch((err) => {
  const e = toIdsyncError(err);
  parentPort!.postMessage({ type: 'error', code: e.code, message: e.message });
});
