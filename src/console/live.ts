// Server-Sent Events for the console's live pages (WHATWG HTML §9.2). A page's stream carries
// HTML for htmx to put in place (rows as they are logged) and a named `changed` event when the
// state a page shows may have changed, so its regions fetch themselves again. `changed` is sent
// at most every `throttleMs`, whatever the rate of changes, and while changes keep coming (a fleet
// running) at most every `busyThrottleMs`: each one makes every open page render its regions
// again, on the twin's own event loop. A client that cannot keep up (its socket buffer over
// `maxBufferedBytes`) is disconnected; the browser reconnects and catches up by Last-Event-ID.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SECURITY_HEADERS } from './security.js';

export interface LiveStream {
  /** Sends one event: `data` may hold newlines; `id` becomes the browser's Last-Event-ID. */
  send(data: string, o?: { event?: string; id?: string }): void;
  readonly closed: boolean;
  /** The Last-Event-ID the browser sent when it reconnected. */
  readonly lastEventId?: string;
}

export interface LiveHub {
  /**
   * Answers `request` with an event stream; `start` is called with it and may return a function
   * run when it closes.
   */
  open(request: FastifyRequest, reply: FastifyReply, start: (stream: LiveStream) => (() => void) | void): void;
  /** Tells every stream that state may have changed (throttled). */
  changed(): void;
  /** Ends every stream (before the server closes). */
  close(): void;
  readonly size: number;
}

export interface LiveOptions {
  throttleMs?: number;
  /** The gap between two `changed` while changes keep coming (default 1000 ms). */
  busyThrottleMs?: number;
  heartbeatMs?: number;
  maxBufferedBytes?: number;
}

function frame(data: string, o: { event?: string; id?: string } = {}): string {
  let out = '';
  if (o.event) out += `event: ${o.event}\n`;
  if (o.id) out += `id: ${o.id.replace(/[\r\n]/g, '')}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export function liveHub(options: LiveOptions = {}): LiveHub {
  const throttleMs = options.throttleMs ?? 300;
  const busyThrottleMs = Math.max(throttleMs, options.busyThrottleMs ?? 1000);
  const heartbeatMs = options.heartbeatMs ?? 20_000;
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
  const streams = new Set<{ stream: LiveStream; end(): void }>();
  let pending: NodeJS.Timeout | undefined;
  let lastSent = 0;
  // Busy: the last two `changed` went out close together, so changes keep coming.
  let busy = false;

  const broadcastChanged = () => {
    pending = undefined;
    const now = Date.now();
    busy = now - lastSent <= busyThrottleMs + throttleMs;
    lastSent = now;
    for (const s of streams) s.stream.send(String(lastSent), { event: 'changed' });
  };

  return {
    open(request, reply, start) {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      let closed = false;
      const last = request.headers['last-event-id'];
      const stream: LiveStream = {
        get closed() {
          return closed;
        },
        ...(typeof last === 'string' && last !== '' ? { lastEventId: last } : {}),
        send(data, o) {
          if (closed) return;
          if (res.writableLength > maxBuffered) return end();
          res.write(frame(data, o));
        },
      };
      let stop: (() => void) | void;
      const heartbeat = setInterval(() => !closed && res.write(': keep-alive\n\n'), heartbeatMs);
      heartbeat.unref();
      const entry = { stream, end: () => end() };
      function end(): void {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        streams.delete(entry);
        try {
          stop?.();
        } finally {
          res.end();
        }
      }
      streams.add(entry);
      // The response closes when the browser goes away (or the server ends it).
      res.on('close', end);
      res.on('error', end);
      // A client that left while the route still awaited (its session check, its filter) closed
      // the response before these listeners existed: 'close' will not come again, and the stream
      // (its heartbeat, its feed) would stay for good.
      if (request.raw?.destroyed === true || res.destroyed === true || res.socket?.destroyed === true) return end();
      // The retry delay the browser waits before reconnecting (ms).
      res.write('retry: 1000\n\n');
      stop = start(stream);
    },
    changed() {
      if (pending) return;
      const wait = Math.max(0, (busy ? busyThrottleMs : throttleMs) - (Date.now() - lastSent));
      pending = setTimeout(broadcastChanged, wait);
      pending.unref();
    },
    close() {
      if (pending) clearTimeout(pending);
      pending = undefined;
      for (const s of [...streams]) s.end();
    },
    get size() {
      return streams.size;
    },
  };
}
