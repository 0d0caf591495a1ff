// Servers a testbed restarts on the same port (their DIDs name it) listen below the kernel's
// ephemeral range, where no outbound connection can take the port while they are down; a port
// some other server holds is passed over for another.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { IdsyncError } from '../../src/errors.js';
import { FETCH_BAD_PORTS, portsOutside, restartablePort, restartableRange, startOnRestartablePort } from '../../src/testing/restartable-port.js';
import { startTestbed, type Testbed } from '../../src/testing/index.js';

// The kernel's ephemeral range, read here on its own (Linux), to check the choice against.
const EPHEMERAL = (() => {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return { low: low!, high: high! };
  } catch {
    return undefined;
  }
})();
const outsideEphemeral = (port: number) => !EPHEMERAL || port < EPHEMERAL.low || port > EPHEMERAL.high;

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('restartable ports', () => {
  it('are chosen outside the ephemeral range', () => {
    const { from, to } = restartableRange();
    for (let i = 0; i < 1000; i++) {
      const p = restartablePort();
      expect(p).toBeGreaterThanOrEqual(Math.max(1024, from));
      expect(p).toBeLessThan(to);
      expect(outsideEphemeral(p)).toBe(true);
    }
  });

  it('are never a port fetch refuses (the Fetch standard\'s bad ports, e.g. 10080)', async () => {
    const { from, to } = restartableRange();
    // The draw that lands on 10080 takes the next port.
    if (from <= 10_080 && 10_080 < to) expect(restartablePort(() => (10_080 - from + 0.5) / (to - from))).toBe(10_081);
    for (const p of FETCH_BAD_PORTS) expect(restartablePort(() => (Math.max(from, Math.min(p, to - 1)) - from + 0.5) / (to - from))).not.toBe(p);
    // And fetch does refuse it: a server there is unreachable by any of our HTTP clients.
    await expect(fetch('http://127.0.0.1:10080/')).rejects.toMatchObject({ cause: { message: 'bad port' } });
  });

  it('lie below the ephemeral range, or above it when it starts low', () => {
    expect(portsOutside(32_768, 60_999)).toEqual({ from: 10_000, to: 32_768 });
    expect(portsOutside(49_152, 65_535)).toEqual({ from: 10_000, to: 49_152 });
    expect(portsOutside(1_024, 50_000)).toEqual({ from: 50_001, to: 65_536 });
    // Nothing is outside a range that covers every port: any unprivileged one will have to do.
    expect(portsOutside(1_024, 65_535)).toEqual({ from: 1_024, to: 65_536 });
  });

  it('try another port when one is in use, and give up on any other refusal at once', async () => {
    const tried: number[] = [];
    const port = await startOnRestartablePort(async (p) => {
      tried.push(p);
      if (tried.length < 3) throw Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
      return p;
    });
    expect(tried).toHaveLength(3);
    expect(port).toBe(tried[2]);

    let calls = 0;
    await expect(
      startOnRestartablePort(async () => {
        calls++;
        throw new IdsyncError('address_not_available', 'no such address');
      }),
    ).rejects.toMatchObject({ code: 'address_not_available' });
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      startOnRestartablePort(async (p) => {
        calls++;
        throw new IdsyncError('address_in_use', `127.0.0.1:${p} is already in use`);
      }),
    ).rejects.toMatchObject({ code: 'address_in_use' });
    expect(calls).toBe(20);
  });

  it('let a testbed restart its service and wallet over HTTP on the ports their DIDs name', async () => {
    bed = await startTestbed({ transport: 'http' });
    const servicePort = Number(new URL(bed.service.url).port);
    const walletUrl = bed.wallets[0].endpoints!.http!;
    expect(outsideEphemeral(servicePort)).toBe(true);
    expect(outsideEphemeral(Number(new URL(walletUrl).port))).toBe(true);

    await bed.restart('service');
    expect(bed.service.url).toBe(`http://127.0.0.1:${servicePort}`);
    const wallet = await bed.restart(bed.wallets[0]);
    expect(wallet!.endpoints!.http).toBe(walletUrl);
  });
});
