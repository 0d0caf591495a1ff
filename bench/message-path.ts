// What a message costs outside its cryptography, operation by operation, in CPU time (the
// process's clock, steadier than wall time on a shared machine): each figure the median of
// several rounds.
//   link-post-202     a DIDComm POST over the fleet's in-process link in one thread: the wallet's
//                     HTTP transport, the link, the twin's answer (a trust ping nobody needs
//                     answered: 202)
//   link-post-400     the same, a message refused for good (an unknown type from nobody: 400)
//   link-rest-put     a REST call over the same link: the service client's PUT of a user (what a
//                     fleet wallet's flow starts with), the link, the twin's answer (200)
//   serialize-flow    the plaintext layout of one sync flow's messages (the wallet's log)
//   check-envelope    the conformance rules on an authcrypted issue-credential as received
//   first-resolution  a did:ion long form this process never saw, resolved through the project
//                     resolver and converted for the envelope layer (what the service does for
//                     each new holder)
// Compare two commits by running this in each checkout, alternately.
// Run: npm run bench:message   (node --import tsx bench/message-path.ts); --quick for fewer
// operations; --json: the last line is {"<operation>": {"us": median, "rounds": [...]}}.
import { createIonDid, createIonLongForm, generateSecp256k1Jwk, ionDocumentModel, resolveIonLongForm } from '../src/did/ion.js';
import { createResolver, documentResolver, resolutionCache } from '../src/did/resolver.js';
import { checkEnvelope } from '../src/conformance/envelope.js';
import { cachedLibraryDoc } from '../src/didcomm/envelope/adapters.js';
import { pack } from '../src/didcomm/envelope/index.js';
import { serializePlaintext } from '../src/didcomm/envelope/jwm.js';
import { memorySecrets } from '../src/didcomm/secrets.js';
import { httpTransport } from '../src/didcomm/transport/http.js';
import type { PlainMessage } from '../src/didcomm/types.js';
import { linkFetch } from '../src/fleet/link.js';
import { appExchange } from '../src/testing/inject-fetch.js';
import { generateKeyPair } from '../src/keys.js';
import { createService } from '../src/service/app.js';
import { openStore } from '../src/store/store.js';
import { createServiceClient, startTestbed } from '../src/testing/index.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const json = argv.includes('--json');
const ROUNDS = quick ? 3 : 5;
const scale = quick ? 0.25 : 1;

const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** CPU µs per call of `f`, as the median of ROUNDS rounds of `n` calls, after a warm-up. */
async function measure(n: number, f: (i: number) => unknown): Promise<{ us: number; rounds: number[] }> {
  let i = 0;
  for (let k = 0; k < n / 4; k++) await f(i++);
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = cpuUs();
    for (let k = 0; k < n; k++) await f(i++);
    rounds.push(+((cpuUs() - t) / n).toFixed(1));
  }
  return { us: median(rounds), rounds };
}

const out: Record<string, { us: number; rounds: number[] }> = {};
const report = (name: string, r: { us: number; rounds: number[] }) => {
  out[name] = r;
  if (!json) console.log(`${name.padEnd(18)} ${String(r.us).padStart(8)} µs CPU   (rounds ${r.rounds.join(', ')})`);
};

// --- the link -------------------------------------------------------------------------------
{
  const store = await openStore();
  const service = await createService({ env: { clientId: 'bench', clientSecret: 'bench-secret-0123456789', projectId: 'bench' }, rateLimit: false, store, demoTenant: false });
  const url = `${await service.listen({ port: 0, host: '127.0.0.1' })}/didcomm`;
  const transport = httpTransport({ fetch: linkFetch(appExchange(service.app)) });
  const message = (i: number, type: string, body: object) => JSON.stringify({ id: `m-${i}`, typ: 'application/didcomm-plain+json', type, body });
  const n = Math.round(2000 * scale);
  report('link-post-202', await measure(n, (i) => transport.send(url, message(i, 'https://didcomm.org/trust-ping/2.0/ping', { response_requested: false }))));
  report('link-post-400', await measure(n, (i) => transport.send(url, message(i, 'https://example.org/nobody/1.0/x', {})).catch(() => undefined)));
  const client = createServiceClient({ url: url.replace(/\/didcomm$/, ''), clientId: 'bench', clientSecret: 'bench-secret-0123456789', fetch: linkFetch(appExchange(service.app)) });
  report('link-rest-put', await measure(n, (i) => client.putUser(`u${i % 50}`, { settings: { isSyncOn: true } })));
  await service.close();
  await store.close();
}

// --- one flow's plaintexts ------------------------------------------------------------------
{
  const bed = await startTestbed({ wallets: 0, webhooks: false });
  const wallet = await bed.addWallet();
  const { client } = bed.service;
  await client.putUser('u1', { settings: { isSyncOn: true } });
  const { invitationUrl } = await client.invite('u1');
  await wallet.acceptInvitation(invitationUrl!);
  const stored = wallet.waitForCredential({ timeoutMs: 60_000 });
  await client.putDatapoints('u1', { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', nationality: 'GB', emailAddress: 'ada@example.com' });
  await stored;
  const messages = (await wallet.messages()).map((r) => r.message);
  await bed.close();
  report('serialize-flow', await measure(Math.round(1000 * scale), () => {
    for (const m of messages) serializePlaintext(m);
  }));
}

// --- an envelope as received ----------------------------------------------------------------
{
  const a = createIonDid({ endpoint: 'http://127.0.0.1:1/w/1' });
  const b = createIonDid({ endpoint: 'http://127.0.0.1:2/didcomm' });
  const docs = new Map([[a.did, resolveIonLongForm(a.did)], [b.did, resolveIonLongForm(b.did)]]);
  const ctx = { resolve: async (d: string) => docs.get(d) ?? null, secrets: memorySecrets([...a.secrets, ...b.secrets]) };
  const credential = {
    '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiableCredential'], issuer: 'did:web:example.org', validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', nationality: 'GB', emailAddress: 'ada@example.com' },
    proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-jcs-2022', created: '2026-01-01T00:00:00Z', verificationMethod: 'did:web:example.org#key-3', proofPurpose: 'assertionMethod', proofValue: `z${'A'.repeat(86)}` },
  };
  const message: PlainMessage = {
    id: 'issue-1', type: 'https://didcomm.org/issue-credential/3.0/issue-credential', from: a.did, to: [b.did], thid: 'thread-1', created_time: 1_700_000_000,
    body: {}, attachments: [{ id: 'vc', media_type: 'application/json', format: 'w3c/vc@v2.0', data: { json: credential } }],
  };
  const { packed } = await pack(message, { mode: 'authcrypt', forward: false }, ctx);
  report('check-envelope', await measure(Math.round(10_000 * scale), () => checkEnvelope(packed)));
}

// --- new holders' long forms ----------------------------------------------------------------
{
  // Built without resolving them, so that this process has never checked them.
  const count = Math.round(150 * scale) * (ROUNDS + 1);
  const dids = Array.from({ length: count }, (_, i) => {
    const document = ionDocumentModel({ authenticationKey: generateKeyPair('Ed25519'), keyAgreementKey: generateKeyPair('X25519'), endpoint: `http://127.0.0.1:1/w/${i}` });
    return createIonLongForm({ recoveryKey: generateSecp256k1Jwk(), updateKey: generateSecp256k1Jwk(), document }).did;
  });
  const resolve = documentResolver(createResolver({ cache: resolutionCache({ max: 4096 }) }));
  const per = count / (ROUNDS + 1);
  // measure() warms up with a quarter round: every call takes the next DID.
  report('first-resolution', await measure(Math.floor(per * 0.8), async (i) => {
    const did = dids[i]!;
    cachedLibraryDoc((await resolve(did))!, did);
  }));
}

if (json) console.log(JSON.stringify(out));
process.exit(0);
