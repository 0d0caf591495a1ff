// The wallet pool's fetch: requests to the mediator started for a fleet run go over its link
// (no socket, no HTTP parsing), the service's over the service's link, anything else to the network.
import { describe, expect, it } from 'vitest';
import { startWalletPool } from '../../src/fleet/wallet-pool.js';
import type { LinkHandler } from '../../src/fleet/link.js';

const recorder = (name: string, seen: string[]): LinkHandler => async (req) => {
  seen.push(`${name} ${req.method} ${req.url} ${req.body ?? ''}`);
  return { status: 202, headers: {} };
};

describe('wallet pool links', () => {
  it('sends requests under the mediator\'s origin over its link and the service\'s over its own', async () => {
    const seen: string[] = [];
    const pool = await startWalletPool({
      serviceUrl: 'http://127.0.0.1:7',
      serviceLink: recorder('service', seen),
      mediatorLink: { url: 'http://127.0.0.1:9', call: recorder('mediator', seen) },
    });
    try {
      const toMediator = await pool.fetch('http://127.0.0.1:9/didcomm', { method: 'POST', body: 'm', headers: { 'content-type': 'application/didcomm-encrypted+json' } });
      const toService = await pool.fetch('http://127.0.0.1:7/didcomm', { method: 'POST', body: 's' });
      expect([toMediator.status, toService.status]).toEqual([202, 202]);
      expect(seen).toEqual(['mediator POST http://127.0.0.1:9/didcomm m', 'service POST http://127.0.0.1:7/didcomm s']);
      // Another port of the same host is not the mediator: it goes to the network (nothing listens there).
      await expect(pool.fetch('http://127.0.0.1:1/didcomm', { method: 'POST', body: 'x', signal: AbortSignal.timeout(5000) })).rejects.toThrow();
      expect(seen).toHaveLength(2);
    } finally {
      await pool.close();
    }
  });
});
