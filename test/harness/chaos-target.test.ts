// The harness against a target that answers anything: a did:peer:2 whose endpoint, on 127.0.0.1,
// answers each POST with a status and a body drawn from a seeded generator (JSON that is no
// message, broken JWEs and JWSs, the harness's own request back, HTML, nothing), sometimes late,
// sometimes by cutting the connection. What a conformance engineer gets from a broken agent is a
// report: the run ends, every case has a status, and no case ends because the harness itself
// failed on what it read (a TypeError or RangeError in "the case could not run"). Such a target
// blocks most suites at its first refused ping, so the same is asked of the agent of
// wrong-agent.ts with several of its faults at once, drawn, which answers well enough to go deeper.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didcommService } from '../../src/did/document.js';
import { encodePeerDid2 } from '../../src/did/peer.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { generateKeyPair, toMultikey } from '../../src/keys.js';
import { draw } from '../fuzz-kit.js';
import { readVector } from '../didcomm/envelope-fixtures.js';
import { startWrongAgent, type WrongAgentFault } from './wrong-agent.js';

/** A case the harness could not run because it failed on what it read, not because of the agent. */
const HARNESS_FAILED = /could not run: .*(TypeError|RangeError|Cannot read|is not a function|is not iterable|undefined)/;

describe('the harness against a target that answers anything', () => {
  let server: http.Server;
  let did: string;
  const { rnd, int, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => ['didcomm/v2', 'application/didcomm-encrypted+json']);
  const vectors = ['authcrypt-x25519-a256cbc.json', 'anoncrypt-x25519-xc20p.json', 'signed-eddsa-ed25519.json', 'plaintext.json'].map(readVector);

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = Buffer.concat(chunks).toString();
        const how = rnd();
        if (how < 0.01) return void req.socket.destroy();
        const status = pick([200, 200, 202, 202, 204, 400, 404, 413, 429, 500, 503]);
        const body = pick([
          '', JSON.stringify(value(1)), pick(vectors), pick(vectors).slice(0, int(200)), request, JSON.stringify(request), '<html>nope</html>',
          JSON.stringify({ protected: 'e30', recipients: [{ header: { kid: `${did}#key-2` }, encrypted_key: 'AA' }], iv: 'AA', ciphertext: 'AA', tag: 'AA' }),
        ]);
        const type = pick(['application/json', 'application/didcomm-encrypted+json', 'application/didcomm-signed+json', 'text/html', 'text/plain']);
        const send = () => {
          res.writeHead(status, { 'content-type': type, ...(status === 429 || status === 503 ? { 'retry-after': pick(['0', '1', 'x', '99999']) } : {}) });
          res.end(body);
        };
        if (rnd() < 0.1) setTimeout(send, 50 + int(150));
        else send();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/didcomm`;
    did = encodePeerDid2({
      keys: [{ purpose: 'E', publicKeyMultibase: toMultikey(generateKeyPair('X25519')) }, { purpose: 'V', publicKeyMultibase: toMultikey(generateKeyPair('Ed25519')) }],
      services: [didcommService('#didcomm', url) as unknown as Record<string, unknown>],
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('ends the same way against an agent with several faults at once', async () => {
    // The agent of wrong-agent.ts, each of its faults alone already judged there: here drawn together.
    const faults: WrongAgentFault[] = [
      'ping-thid', 'disclose-refuse', 'disclose-refuse-400', 'junk-5xx', 'plaintext-reply', 'authcrypt-400', 'no-flattened', 'no-disclose', 'one-layer', 'broken-reply',
      'tampered-reply', 'reuse-id', 'json-200', 'no-problem-reports', 'pickup-return-route', 'pickup-json-receipt',
    ];
    const failures: string[] = [];
    for (let run = 0; run < 4; run++) {
      const drawn = [...new Set(Array.from({ length: 2 + int(4) }, () => pick(faults)))];
      const agent = await startWrongAgent(drawn);
      try {
        const report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs: 500 });
        for (const c of report.cases) if (c.status === 'inconclusive' && HARNESS_FAILED.test(c.detail ?? '')) failures.push(`${drawn.join('+')} ${c.id}: ${c.detail}`);
      } finally {
        await agent.close();
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('ends with a report in which every case has a status and none failed the harness itself', async () => {
    const report = await runConformance({ target: did, resolve: documentResolver(createResolver({})), timeoutMs: 300 });
    expect(report.cases.length).toBeGreaterThan(10);
    for (const c of report.cases) expect(['passed', 'failed', 'expected', 'blocked', 'skipped', 'inconclusive']).toContain(c.status);
    const harnessFailures = report.cases
      .filter((c) => c.status === 'inconclusive' && HARNESS_FAILED.test(c.detail ?? ''))
      .map((c) => `${c.id}: ${c.detail}`);
    expect(harnessFailures).toEqual([]);
  }, 120_000);
});
