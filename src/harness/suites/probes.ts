// A harmless message for each protocol idsync speaks, to try a protocol an agent discloses
// (Discover Features 2.0) without committing to anything: a ping, a query, a basic message, a
// pickup status request, a warning about a thread that does not exist, and for the credential
// protocols the one message the receiving role cannot do without (an issuer takes
// request-credential, a verifier a presentation), well formed and signed, in a thread that does
// not exist, so that the agent can only decline it. Proposals are optional in both protocols: an
// agent that takes none declines them, rightly, and that says nothing about whether it supports
// the protocol. Each probe names the role that receives it: a protocol disclosed with roles is
// probed only in a role the agent plays (a pickup recipient rightly refuses a status-request,
// which is for mediators).
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../clock.js';
import { xsdDateTime } from '../../credentials/issue.js';
import { signPresentation, type VerifiablePresentation } from '../../credentials/presentation.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { buildCredentialApplication } from '../../protocols/credential-manifest-messages.js';
import { buildRequestCredential } from '../../protocols/issue-credential.js';
import { buildDidAuthPresentation, buildPresentation } from '../../protocols/present-proof.js';
import type { Counterpart } from '../counterpart.js';

export interface Probe {
  /** The message name, appended to the disclosed PIURI. */
  name: string;
  /** The role that receives it; absent when the protocol has no roles or any party receives it. */
  role?: string;
  /** The message, for `type` (the disclosed PIURI and the name). */
  build(cp: Counterpart, type: string): PlainMessage;
}

const COMMENT = 'idsync conformance probe: this message only checks that the protocol is supported; declining it is fine';

const simple = (name: string, role: string | undefined, body: Record<string, unknown>, extra: () => Partial<PlainMessage> = () => ({})): Probe => ({
  name,
  ...(role ? { role } : {}),
  build: (cp, type) => cp.draft(type, body, extra()),
});

/** A presentation signed by the harness's authentication key, for a challenge nobody issued. */
function signed(cp: Counterpart, vp: VerifiablePresentation) {
  const key = cp.signingKey();
  return signPresentation(vp, { kid: key.kid, privateKey: key.privateKey, challenge: randomUUID(), domain: cp.target() ?? cp.did, created: xsdDateTime(Date.now()) });
}

const headers = (cp: Counterpart) => ({ from: cp.did, ...(cp.target() ? { to: cp.target()! } : {}), thid: randomUUID() });

/** By protocol, any minor version (`https://didcomm.org/trust-ping/2` matches 2.0 and 2.1). */
export const PROBES: Record<string, Probe> = {
  // DIDComm v2.1 §Trust Ping Protocol 2.0: roles sender and receiver.
  'https://didcomm.org/trust-ping/2': simple('ping', 'receiver', { response_requested: true }),
  // DIDComm v2.1 §Discover Features Protocol 2.0: roles requester and responder.
  'https://didcomm.org/discover-features/2': simple('queries', 'responder', { queries: [{ 'feature-type': 'protocol', match: 'https://didcomm.org/trust-ping/*' }] }),
  // Basic Message 2.0: roles sender and receiver; "no protocol level expectation of a response".
  'https://didcomm.org/basicmessage/2': simple('message', 'receiver', { content: COMMENT }),
  // Message Pickup 3.0: the mediator answers a status-request with status (return_route all, §Requirements).
  'https://didcomm.org/messagepickup/3': simple('status-request', 'mediator', {}, () => ({ return_route: 'all' })),
  // Report Problem 2.0 (DIDComm v2.1 §Problem Reports): a warning (sorter w) about a thread the agent never saw.
  'https://didcomm.org/report-problem/2': simple('problem-report', undefined, { code: 'w.p.msg.conformance-probe', comment: COMMENT }, () => ({ pthid: randomUUID() })),
  // Issue Credential 3.0 (WACI): the issuer takes request-credential; in a thread no offer started, it declines.
  'https://didcomm.org/issue-credential/3': {
    name: 'request-credential',
    role: 'issuer',
    build: (cp, type) => ({ ...buildRequestCredential({ ...headers(cp), application: signed(cp, buildCredentialApplication({ holder: cp.did, manifestId: randomUUID() })) }, { clock: systemClock }), type }),
  },
  // Present Proof 3.0 (WACI): the verifier takes a presentation; in a thread no request started, it declines.
  'https://didcomm.org/present-proof/3': {
    name: 'presentation',
    role: 'verifier',
    build: (cp, type) => ({ ...buildPresentation({ ...headers(cp), presentation: signed(cp, buildDidAuthPresentation({ holder: cp.did, definitionId: randomUUID() })) }, { clock: systemClock }), type }),
  },
};
