// A request written byte for byte on a new connection (what fetch will not send: a malformed
// request line, two Content-Lengths), read until the server closes it.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  contentType?: string;
  json: Record<string, unknown>;
}

export function rawExchange(url: string, raw: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const socket = connect(Number(u.port), u.hostname, () => socket.end(raw));
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (got += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = got.split('\r\n\r\n');
      resolve({ status: Number(head!.split(' ')[1]), contentType: /content-type: ([^\r]+)/i.exec(head!)?.[1], json: JSON.parse(body!) as Record<string, unknown> });
    });
  });
}
