// A webhook receiver on 127.0.0.1, port 0, for tests: records requests and answers with
// scripted statuses; `next()` resolves on the next request so tests never sleep.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses to answer with, in order; 200 once exhausted. */
  script: number[];
  next(): Promise<Received>;
  close(): Promise<void>;
}

export async function startReceiver(script: number[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: ((r: Received) => void)[] = [];
  const r = { script } as Receiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = r.script.shift() ?? 200;
      const rec = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status };
      received.push(rec);
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      waiters.shift()?.(rec);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  r.url = `http://127.0.0.1:${port}/hooks`;
  r.received = received;
  r.next = () => new Promise((resolve) => waiters.push(resolve));
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}
