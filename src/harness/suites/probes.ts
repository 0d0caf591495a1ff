// A harmless message for each protocol idsync speaks, to try a protocol an agent discloses
// (Discover Features 2.0) without committing to anything: a ping, a query, a basic message, a
// pickup status request, a warning about a thread that does not exist, and for the credential
// protocols the one message the receiving role cannot do without (an issuer takes
// request-credential, a verifier a presentation), in a thread that does not exist, so that the
// agent can only decline it. Proposals are optional in both protocols: an agent that takes none
// declines them, rightly, and that says nothing about whether it supports the protocol. Each probe
// names the role that receives it: a protocol disclosed with roles is probed only in a role the
// agent plays (a pickup recipient rightly refuses a status-request, which is for mediators).
import { randomUUID } from 'node:crypto';
import type { PlainMessage } from '../../didcomm/types.js';

export interface Probe {
  /** The message name, appended to the disclosed PIURI. */
  name: string;
  /** The role that receives it; absent when the protocol has no roles or any party receives it. */
  role?: string;
  body: Record<string, unknown>;
  extra?: () => Partial<PlainMessage>;
}

const COMMENT = 'idsync conformance probe: this message only checks that the protocol is supported; declining it is fine';

/** By protocol, any minor version (`https://didcomm.org/trust-ping/2` matches 2.0 and 2.1). */
export const PROBES: Record<string, Probe> = {
  // DIDComm v2.1 §Trust Ping Protocol 2.0: roles sender and receiver.
  'https://didcomm.org/trust-ping/2': { name: 'ping', role: 'receiver', body: { response_requested: true } },
  // DIDComm v2.1 §Discover Features Protocol 2.0: roles requester and responder.
  'https://didcomm.org/discover-features/2': { name: 'queries', role: 'responder', body: { queries: [{ 'feature-type': 'protocol', match: 'https://didcomm.org/trust-ping/*' }] } },
  // Basic Message 2.0: roles sender and receiver; "no protocol level expectation of a response".
  'https://didcomm.org/basicmessage/2': { name: 'message', role: 'receiver', body: { content: COMMENT } },
  // Message Pickup 3.0: the mediator answers a status-request with status (return_route all, §Requirements).
  'https://didcomm.org/messagepickup/3': { name: 'status-request', role: 'mediator', body: {}, extra: () => ({ return_route: 'all' }) },
  // Issue Credential 3.0: the issuer receives request-credential; in a thread no offer started, it declines.
  'https://didcomm.org/issue-credential/3': { name: 'request-credential', role: 'issuer', body: { goal_code: 'idsync.conformance.probe', comment: COMMENT }, extra: () => ({ thid: randomUUID() }) },
  // Present Proof 3.0: the verifier receives presentation; in a thread no request started, it declines.
  'https://didcomm.org/present-proof/3': { name: 'presentation', role: 'verifier', body: { comment: COMMENT }, extra: () => ({ thid: randomUUID() }) },
  // Report Problem 2.0 (DIDComm v2.1 §Problem Reports): a warning (sorter w) about a thread the agent never saw.
  'https://didcomm.org/report-problem/2': { name: 'problem-report', body: { code: 'w.p.msg.conformance-probe', comment: COMMENT }, extra: () => ({ pthid: randomUUID() }) },
};
