// The console with a fleet running: a service twin serving its console over HTTP on 127.0.0.1,
// wallets syncing against it (runFleet at the twin's URL, as `idsync fleet --service` does), and
// what a person watching would see measured: how far the live message view falls behind the
// message log (each record's time in the log against the time its row arrived on the view's event
// stream, or in a browser's list), and how long the console's pages take meanwhile. Used by the
// fleet check test and by `npm run bench:console`.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { runFleet, type FleetOptions, type FleetResult } from '../fleet/fleet.js';
import { watchMessageLog } from '../store/messages.js';
import { startTestbed, type Testbed } from '../testing/testbed.js';
import type { LiveOptions } from './live.js';
import { serviceConsole } from './service-console.js';

export interface ConsoleFleet {
  /** The twin's base URL (the console is at /console). */
  url: string;
  /** A signed-in session's Cookie header. */
  cookie: string;
  /** When each record of the twin's message log was written (wall-clock ms), by seq. */
  logged: ReadonlyMap<string, number>;
  /** How late the twin's event loop ran since the start (what every page and stream waits behind). */
  loopDelay(): { p50Ms: number; p99Ms: number; maxMs: number };
  fleet(o: { wallets: number; concurrency: number; workers?: FleetOptions['workers']; timeoutMs?: number; onProgress?: FleetOptions['onProgress'] }): Promise<FleetResult>;
  close(): Promise<void>;
}

export async function startConsoleFleet(o: { live?: LiveOptions } = {}): Promise<ConsoleFleet> {
  const bed: Testbed = await startTestbed({ transport: 'http', wallets: 0, webhooks: false, service: { plugins: [serviceConsole({ ...(o.live ? { live: o.live } : {}) })] } });
  const logged = new Map<string, number>();
  const stop = watchMessageLog(bed.service.deps.store, (c) => {
    if (c.kind === 'record' && !logged.has(c.message.seq)) logged.set(c.message.seq, Date.now());
  });
  const { clientId, clientSecret } = bed.service.credentials;
  const login = await fetch(`${bed.service.url}/console/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: bed.service.url },
    body: new URLSearchParams({ clientId, clientSecret }),
    redirect: 'manual',
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const ms = (ns: number) => Math.round(ns / 1e6);
  return {
    loopDelay: () => ({ p50Ms: ms(loop.percentile(50)), p99Ms: ms(loop.percentile(99)), maxMs: ms(loop.max) }),
    url: bed.service.url,
    cookie,
    logged,
    fleet: (f) =>
      runFleet({
        scenario: { builtin: 'sync' },
        model: { kind: 'closed', wallets: f.wallets, concurrency: f.concurrency },
        service: { url: bed.service.url, credentials: bed.service.credentials },
        workers: f.workers ?? 'auto',
        timeoutMs: f.timeoutMs ?? 60_000,
        ...(f.onProgress ? { onProgress: f.onProgress } : {}),
      }),
    async close() {
      loop.disable();
      stop();
      await bed.close();
    },
  };
}

export interface ViewFollower {
  /** When each row first arrived (wall-clock ms), by seq. */
  arrivals: ReadonlyMap<string, number>;
  /** Times the stream ended and was opened again (Last-Event-ID). */
  readonly reconnects: number;
  /** Resolves once every seq of `seqs` has arrived, or after `guardMs` (whichever first). */
  caughtUp(seqs: Iterable<string>, guardMs: number): Promise<void>;
  close(): void;
}

const ROW_SEQ = /id="m-(\d+-\d+)"/g;

/** Follows /console/stream/messages as a browser does: rows as they come, reconnecting with Last-Event-ID. */
export function followMessageView(url: string, cookie: string): ViewFollower {
  const arrivals = new Map<string, number>();
  const ctl = new AbortController();
  let reconnects = 0;
  let lastId: string | undefined;
  let check: (() => void) | undefined;
  const onData = (data: string) => {
    const now = Date.now();
    for (const m of data.matchAll(ROW_SEQ)) if (!arrivals.has(m[1]!)) arrivals.set(m[1]!, now);
    check?.();
  };
  const run = async () => {
    while (!ctl.signal.aborted) {
      try {
        const res = await fetch(`${url}/console/stream/messages`, { headers: { accept: 'text/event-stream', cookie, ...(lastId ? { 'last-event-id': lastId } : {}) }, signal: ctl.signal });
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
            const id = /^id: (.*)$/m.exec(frame)?.[1];
            if (id) lastId = id;
            if (data) onData(data);
          }
        }
      } catch {
        // Aborted, or the connection broke: open it again unless closed.
      }
      if (!ctl.signal.aborted) reconnects++;
    }
  };
  void run();
  return {
    arrivals,
    get reconnects() {
      return reconnects;
    },
    caughtUp(seqs, guardMs) {
      const want = [...seqs];
      return new Promise<void>((resolve) => {
        const guard = setTimeout(done, guardMs);
        function done(): void {
          clearTimeout(guard);
          check = undefined;
          resolve();
        }
        check = () => want.every((s) => arrivals.has(s)) && done();
        check();
      });
    },
    close: () => ctl.abort(),
  };
}

export interface LagFigures {
  /** Records in the log, and how many of them reached the view. */
  logged: number;
  shown: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** How long after its record each row reached the view. */
export function lagOf(logged: ReadonlyMap<string, number>, arrivals: ReadonlyMap<string, number>): LagFigures {
  const lags: number[] = [];
  for (const [seq, at] of logged) {
    const seen = arrivals.get(seq);
    if (seen !== undefined) lags.push(Math.max(0, seen - at));
  }
  lags.sort((a, b) => a - b);
  return { logged: logged.size, shown: lags.length, p50Ms: percentile(lags, 50), p90Ms: percentile(lags, 90), p99Ms: percentile(lags, 99), maxMs: lags.at(-1) ?? 0 };
}

export interface PageTimes {
  /** The slowest load of each path (ms). */
  slowest: Record<string, number>;
  requests: number;
  failed: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

/**
 * Loads `paths` one after the other, again and again, as a person clicking through would (a page,
 * then `pauseMs` reading it), until stopped.
 */
export function timePages(url: string, cookie: string, paths: string[], pauseMs = 500): { stop(): Promise<PageTimes> } {
  const times: number[] = [];
  const slowest: Record<string, number> = {};
  let failed = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}${paths[i % paths.length]}`, { headers: { accept: 'text/html', cookie } });
        await res.text();
        if (res.status !== 200) failed++;
      } catch {
        failed++;
      }
      const took = performance.now() - t0;
      const path = paths[i % paths.length]!;
      times.push(took);
      slowest[path] = Math.max(slowest[path] ?? 0, Math.round(took));
      if (!stopped && pauseMs > 0) await new Promise<void>((resolve) => (wake = resolve, setTimeout(resolve, pauseMs)));
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      const sorted = [...times].sort((a, b) => a - b);
      return { slowest, requests: times.length, failed, p50Ms: Math.round(percentile(sorted, 50)), p95Ms: Math.round(percentile(sorted, 95)), maxMs: Math.round(sorted.at(-1) ?? 0) };
    },
  };
}
