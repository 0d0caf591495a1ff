// A scripted stand-in for the service, for wallet unit tests: a did:web with a memory endpoint,
// real envelopes (didcomm/envelope.ts) and the protocol builders of src/protocols. It records
// everything it receives and sends only what a test tells it to. It can also act as a Message
// Pickup mediator for a wallet without an endpoint (messages to such a wallet are queued).
import type { Clock, IdGenerator } from '../../src/clock.js';
import { sequentialIds } from '../../src/clock.js';
import { defaultKycProfile, credentialManifestFor } from '../../src/credentials/manifest.js';
import type { FlatDatapoints } from '../../src/credentials/datapoints.js';
import { issueCredential } from '../../src/credentials/issue.js';
import type { CredentialFormat, IssuerKey, W3cCredential } from '../../src/credentials/types.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { CreatedDid, DocumentResolver } from '../../src/did/types.js';
import { createWebDid } from '../../src/did/web.js';
import { ionShortForm } from '../../src/did/ion-form.js';
import { createRouter, transportOutbound, type Router, type RouterResult } from '../../src/router/router.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { MemoryNetwork } from '../../src/didcomm/transport/memory.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uEncode } from '../../src/encoding.js';
import { keyPairFromJwk } from '../../src/keys.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { buildEstablished, createDataPipeInvitation, DATA_PIPE, dataPipeProtocol, type ParsedDataPipeRequest } from '../../src/protocols/data-pipe.js';
import {
  buildIssueCredential, buildOffer, issueCredentialProtocol, previewFromDatapoints, STREAMLINED_VC, wireCredential,
} from '../../src/protocols/issue-credential.js';
import { buildDelivery, buildStatus, messagePickupProtocol } from '../../src/protocols/message-pickup.js';
import { createInvitation, encodeInvitationUrl, type Invitation } from '../../src/protocols/out-of-band.js';
import { buildRequestPresentation, presentProofProtocol } from '../../src/protocols/present-proof.js';
import type { ParsedProblem } from '../../src/protocols/report-problem.js';

export const SERVICE_URL = 'https://issuer.example';
export const SERVICE_ENDPOINT = 'memory://service';

export interface Received {
  message: PlainMessage;
  sender?: string;
}

export interface FakeService {
  did: string;
  created: CreatedDid;
  router: Router;
  issuer: IssuerKey;
  /** Resolves the service's did:web for the wallet (no HTTP). */
  resolveForWallet: DocumentResolver;
  received: Received[];
  problems: ParsedProblem[];
  /** Packed messages queued for wallets without an endpoint (Message Pickup). */
  queue: Array<{ id: string; packed: string }>;
  /** The next received message whose type ends with `/<name>` (already received ones count). */
  next(name: string, predicate?: (m: PlainMessage) => boolean): Promise<PlainMessage>;
  nextProblem(predicate?: (p: ParsedProblem) => boolean): Promise<ParsedProblem>;
  invitationUrl(goalCode?: string): { invitation: Invitation; url: string };
  /** Answers a data-pipe request with `established` and learns the wallet's short form. */
  establish(request: PlainMessage): Promise<PlainMessage>;
  send(message: PlainMessage, to: string): Promise<PlainMessage>;
  requestPresentation(to: string, o?: { challenge?: string; domain?: string; pthid?: string }): Promise<PlainMessage>;
  /** Like a sync offer: pthid defaults to the wallet's Data Pipe thread (none before `established` or with `thid`). */
  offer(to: string, datapoints: FlatDatapoints, o?: { replacementId?: string; thid?: string; pthid?: string; domain?: string }): Promise<PlainMessage>;
  /** The Data Pipe thread established with `wallet` (either form). */
  pipeThread(wallet: string): string | undefined;
  /** A signed credential for `subject` holding `claims` (tamper with the result to test refusals). */
  credential(subject: string, claims: FlatDatapoints, o?: { format?: CredentialFormat; id?: string }): Promise<W3cCredential | string>;
  issue(to: string, thid: string, credential: W3cCredential | string, o?: { replacementId?: string; statusListCredential?: unknown }): Promise<PlainMessage>;
  results: RouterResult[];
}

/** `autoEstablish`: answer data-pipe requests at once (on the return route when asked), like the real service. */
export function fakeService(network: MemoryNetwork, clock: Clock, options: { ids?: IdGenerator; autoEstablish?: boolean } = {}): FakeService {
  const ids = options.ids ?? sequentialIds('svc');
  const created = createWebDid({ url: SERVICE_URL, endpoint: SERVICE_ENDPOINT });
  const did = created.did;
  const key1 = keyPairFromJwk(created.secrets[0].privateKeyJwk);
  const issuer: IssuerKey = { did, kid: `${did}#key-1`, privateKey: key1.privateKey };
  // The service learns wallet long forms in `established` (docs/protocols.md).
  const longForms = new Map<string, string>();
  // The Data Pipe thread per wallet (short form): sync offers carry it as pthid (docs/protocols.md "Sync").
  const pipes = new Map<string, string>();
  const ion = documentResolver(createResolver({ registry: { get: async (d) => longForms.get(ionShortForm(d)) }, cache: false }));
  const resolve: DocumentResolver = async (d) => (d.split('#')[0] === did ? created.document : ion(d));
  const received: Received[] = [];
  const problems: ParsedProblem[] = [];
  const queue: Array<{ id: string; packed: string }> = [];
  const waiters: Array<() => void> = [];
  const results: RouterResult[] = [];
  const transport = network.transport();
  const deliver = transportOutbound(transport);

  const router = createRouter({
    envelope: { resolve, secrets: memorySecrets(created.secrets) },
    clock,
    ids,
    myDids: [did],
    send: async (packed, target) => {
      if (!target.endpoint) {
        queue.push({ id: `q-${queue.length + 1}`, packed });
        return [];
      }
      return deliver(packed, target);
    },
  });
  const record = (h: { message: PlainMessage; sender?: string }) => {
    received.push({ message: h.message, sender: h.sender });
    waiters.splice(0).forEach((w) => w());
  };
  const recordAll = <T extends string>(names: T[]) => Object.fromEntries(names.map((n) => [n, (h: { message: PlainMessage; sender?: string }) => record(h)]));
  router.use(
    ...basicProtocols({
      reportProblem: {
        onProblem: (p) => {
          problems.push(p);
          waiters.splice(0).forEach((w) => w());
        },
      },
    }),
    dataPipeProtocol(
      {
        request: async (h, p: ParsedDataPipeRequest) => {
          record(h);
          if (!options.autoEstablish) return;
          longForms.set(ionShortForm(p.from), p.from);
          pipes.set(ionShortForm(p.from), h.message.id);
          const body = { did: p.from, short_did: ionShortForm(p.from), established_at: new Date(clock.now()).toISOString() };
          await h.reply({ type: DATA_PIPE.established, body });
        },
      },
      ['responder'],
    ),
    presentProofProtocol(recordAll(['presentation', 'propose-presentation']), ['verifier']),
    issueCredentialProtocol(recordAll(['propose-credential', 'request-credential', 'ack']), ['issuer']),
    messagePickupProtocol(
      {
        'status-request': async (h) => {
          await h.reply(buildStatus({ messageCount: queue.length }, { clock, ids }));
        },
        'delivery-request': async (h, r) => {
          if (queue.length === 0) return void (await h.reply(buildStatus({ messageCount: 0 }, { clock, ids })));
          // Like the real mediator: the delivery's outer layer is anoncrypted.
          await h.reply(buildDelivery({ thid: h.message.id, messages: queue.slice(0, r.limit) }, { clock, ids }), { mode: 'anoncrypt' });
        },
        'messages-received': async (h, r) => {
          for (const id of r.messageIds) {
            const i = queue.findIndex((q) => q.id === id);
            if (i >= 0) queue.splice(i, 1);
          }
          await h.reply(buildStatus({ messageCount: queue.length }, { clock, ids }));
        },
      },
      ['mediator'],
    ),
  );
  network.endpoint(SERVICE_ENDPOINT, async (packed, info) => {
    results.push(await router.receive(packed, info));
  });

  const deps = { clock, ids };
  const until = <T>(find: () => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('fake service: nothing arrived')), 5000);
      const check = () => {
        const found = find();
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        } else waiters.push(check);
      };
      check();
    });
  const taken = new Set<PlainMessage>();
  const takenProblems = new Set<ParsedProblem>();

  const service: FakeService = {
    did, created, router, issuer, received, problems, queue, results,
    resolveForWallet: async (d) => (d.split('#')[0] === did ? created.document : null),
    next: (name, predicate = () => true) =>
      until(() => {
        const r = received.find((x) => !taken.has(x.message) && x.message.type.endsWith(`/${name}`) && predicate(x.message));
        if (r) taken.add(r.message);
        return r?.message;
      }),
    nextProblem: (predicate = () => true) =>
      until(() => {
        const p = problems.find((x) => !takenProblems.has(x) && predicate(x));
        if (p) takenProblems.add(p);
        return p;
      }),
    invitationUrl(goalCode) {
      const invitation = goalCode === STREAMLINED_VC ? createInvitation({ from: did, goal_code: STREAMLINED_VC, goal: 'Issue' }, deps) : createDataPipeInvitation({ from: did }, deps);
      return { invitation, url: encodeInvitationUrl(`${SERVICE_URL}/connect`, invitation) };
    },
    async establish(request) {
      const wallet = request.from as string;
      longForms.set(ionShortForm(wallet), wallet);
      pipes.set(ionShortForm(wallet), request.id);
      const established = buildEstablished(
        { from: did, to: ionShortForm(wallet), thid: request.id, did: wallet, shortDid: ionShortForm(wallet), establishedAt: new Date(clock.now()).toISOString() },
        deps,
      );
      return service.send(established, ionShortForm(wallet));
    },
    pipeThread: (wallet) => pipes.get(ionShortForm(wallet)),
    async send(message, to) {
      return (await router.send(message, { to })).message;
    },
    requestPresentation(to, o = {}) {
      return service.send(buildRequestPresentation({ from: did, to, challenge: o.challenge ?? `challenge-${ids()}`, domain: o.domain ?? did, pthid: o.pthid }, deps), to);
    },
    offer(to, datapoints, o = {}) {
      const manifest = credentialManifestFor(defaultKycProfile(did), did) as unknown as Record<string, unknown>;
      const pthid = o.pthid ?? (o.thid === undefined ? pipes.get(ionShortForm(to)) : undefined);
      const offer = buildOffer({ from: did, to, thid: o.thid, pthid, manifest, preview: previewFromDatapoints(datapoints), challenge: `offer-${ids()}`, domain: o.domain ?? did, replacementId: o.replacementId }, deps);
      return service.send(offer, to);
    },
    async credential(subject, claims, o = {}) {
      const issued = await issueCredential({ format: o.format ?? 'jwt', subjectDid: subject, claims: claims as Record<string, unknown>, issuer, clock, ...(o.id ? { id: o.id } : {}) });
      return wireCredential(issued).credential as W3cCredential | string;
    },
    issue(to, thid, credential, o = {}) {
      const format = typeof credential === 'string' ? 'jwt_vc' : 'ldp_vc';
      const message = buildIssueCredential(
        { from: did, to, thid, manifestId: 'idsync-kyc-default', credential: credential as Record<string, unknown> | string, format, replacementId: o.replacementId, statusListCredential: o.statusListCredential },
        deps,
      );
      return service.send(message, to);
    },
  };
  return service;
}

/** A VC-JWT with its payload changed after signing (the signature no longer matches). */
export function tamperJwt(jwt: string, change: (payload: Record<string, any>) => void): string {
  const [h, p, s] = jwt.split('.');
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  change(payload);
  return `${h}.${b64uEncode(JSON.stringify(payload))}.${s}`;
}
