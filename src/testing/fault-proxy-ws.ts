// The WebSocket half of the fault proxy (fault-proxy.ts): frames between a client socket and its
// socket to the target, each text frame subject to the plan ('to-target' / 'to-client'): drop,
// delay, duplicate, reorder (after the next frame the same way), tamper, disconnect (both close).
import { WebSocket, type RawData } from 'ws';
import { delayOf, peekMessage, tamper, type FaultInjector } from './fault-plan.js';

export function pipeWebSockets(client: WebSocket, upstream: WebSocket, injector: FaultInjector, o: { sleep: (ms: number) => Promise<void>; holdMs: number; path: string }): void {
  const { sleep, holdMs } = o;
  const pending: string[] = [];
  upstream.on('open', () => {
    // The client may have gone while the target's handshake was under way: nothing to pipe for.
    if (client.readyState !== WebSocket.OPEN) return upstream.close(1000);
    pending.splice(0).forEach((p) => upstream.send(p));
  });
  const pipe = (from: WebSocket, to: WebSocket, direction: string, queue?: string[]) => {
    const heldFrames: string[] = [];
    const deliver = (text: string) => {
      if (to.readyState === WebSocket.OPEN) to.send(text);
      else if (queue && to.readyState === WebSocket.CONNECTING) queue.push(text);
    };
    let chain = Promise.resolve();
    from.on('message', (data: RawData, isBinary: boolean) => {
      const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8');
      chain = chain.then(async () => {
        if (isBinary) return deliver(text);
        const peek = peekMessage(text);
        const subject = { direction, mediaType: peek.mediaType, ...(peek.type ? { type: peek.type } : {}), endpoint: o.path };
        const { faults } = injector.decide(subject, ['drop', 'delay', 'duplicate', 'reorder', 'tamper', 'disconnect']);
        let frame = text;
        let copies = 1;
        for (const f of faults) {
          const base = { fault: f.kind, rule: f.rule, ...subject };
          if (f.kind === 'disconnect') {
            injector.record(base);
            client.terminate();
            upstream.terminate();
            return;
          }
          if (f.kind === 'drop') {
            injector.record(base);
            return;
          }
          if (f.kind === 'tamper') {
            const c = tamper(frame, f.rng);
            frame = c.packed;
            injector.record({ ...base, detail: { position: c.position } });
          } else if (f.kind === 'delay') {
            const ms = delayOf(f.spec, f.rng);
            injector.record({ ...base, detail: { ms } });
            await sleep(ms);
          } else if (f.kind === 'duplicate') {
            copies = 2;
            injector.record(base);
          } else if (f.kind === 'reorder') {
            injector.record(base);
            heldFrames.push(frame);
            const mine = frame;
            void sleep(holdMs).then(() => {
              const i = heldFrames.indexOf(mine);
              if (i >= 0) deliver(heldFrames.splice(i, 1)[0]);
            });
            return;
          }
        }
        for (let i = 0; i < copies; i++) deliver(frame);
        for (const h of heldFrames.splice(0)) deliver(h);
      });
    });
  };
  pipe(client, upstream, 'to-target', pending);
  pipe(upstream, client, 'to-client');
  const closeBoth = (code?: number) => {
    const c = code && code >= 1000 && code < 5000 && code !== 1005 && code !== 1006 ? code : 1000;
    if (client.readyState === WebSocket.OPEN) client.close(c);
    if (upstream.readyState === WebSocket.OPEN) upstream.close(c);
    // A target still in its handshake is given up (its socket would otherwise stay open for good).
    else if (upstream.readyState === WebSocket.CONNECTING) upstream.terminate();
  };
  client.on('close', (code) => closeBoth(code));
  upstream.on('close', (code) => closeBoth(code));
  upstream.on('error', () => client.terminate());
  client.on('error', () => upstream.terminate());
}
