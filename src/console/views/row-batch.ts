// The rows of one page's stream, sent in batches. Under a fleet the log records hundreds of
// messages a second: one event per row (a write on the server, a swap in the browser each) made a
// page fall behind, and each open page rendered every row again. Here rows wait at most `batchMs`
// (the first after a quiet spell leaves at once), a record completed before its batch left goes
// once, completed, and a batch is one event whose id is its newest record (what a reconnecting
// browser sends as Last-Event-ID). Rendering is left to `render`, which may share its work.
import type { LoggedMessage } from '../../store/messages.js';
import { html, raw } from '../html.js';
import { rowId } from './message-row.js';

export interface RowBatcher {
  /** A record written (a new row on top) or completed (its row replaced). */
  add(m: LoggedMessage, kind: 'record' | 'update'): void;
  /** A row of markup of its own (a fault on a message never logged here), on top. */
  addRow(markup: string): void;
  close(): void;
}

type Entry = { m: LoggedMessage; replace: boolean } | { markup: string };

/**
 * `send(data, id)` gets each batch; `sent(n)`, if given, is called after it (the stream then says
 * `rows`, which a thread's page refreshes its diagram on).
 */
export function rowBatcher(send: (data: string, id?: string) => void, render: (m: LoggedMessage) => string, batchMs = 100, sent?: (n: number) => void): RowBatcher {
  let order: Entry[] = [];
  const bySeq = new Map<string, { m: LoggedMessage; replace: boolean }>();
  let timer: NodeJS.Timeout | undefined;
  let lastFlush = 0;

  const flush = () => {
    timer = undefined;
    lastFlush = Date.now();
    let id: string | undefined;
    const parts = order.map((e) => {
      if ('markup' in e) return html`<hx-partial hx-target="#message-rows" hx-swap="afterbegin">${raw(e.markup)}</hx-partial>`.value;
      if (!e.replace) id = e.m.seq;
      return e.replace
        ? html`<hx-partial hx-target="#${rowId(e.m.seq)}" hx-swap="outerHTML">${raw(render(e.m))}</hx-partial>`.value
        : html`<hx-partial hx-target="#message-rows" hx-swap="afterbegin">${raw(render(e.m))}</hx-partial>`.value;
    });
    order = [];
    bySeq.clear();
    if (parts.length === 0) return;
    send(parts.join('\n'), id);
    sent?.(parts.length);
  };
  const schedule = () => {
    if (timer) return;
    const wait = lastFlush + batchMs - Date.now();
    // After a quiet spell a row leaves at once, not after the events already waiting on a busy loop.
    if (wait <= 0) return flush();
    timer = setTimeout(flush, wait);
    timer.unref?.();
  };

  return {
    add(m, kind) {
      const queued = bySeq.get(m.seq);
      // Still waiting: it leaves once, as it is now (a new row stays a new row).
      if (queued) queued.m = m;
      else {
        const e = { m, replace: kind === 'update' };
        bySeq.set(m.seq, e);
        order.push(e);
      }
      schedule();
    },
    addRow(markup) {
      order.push({ markup });
      schedule();
    },
    close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      order = [];
      bySeq.clear();
    },
  };
}
