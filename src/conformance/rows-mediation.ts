// Catalogue rows for what a mediator does: Message Pickup 3.0 from the mediator's side,
// Coordinate Mediation 2.0 and 3.0, and the Routing Protocol 2.0 `forward`. The mediator suite of
// `conformance run --role mediator` (src/harness/suites/mediator-*.ts) and idsync's own mediator
// judge by them. Lower-case "must"/"should" in the protocol pages are not RFC 8174 keywords, so
// rows quoting such sentences are advice; `refuses` marks the body shapes a mediator cannot act
// without.
import { row, type RowSpec } from './rule-row.js';
import { MEDIATION_2, MEDIATION_3, PICKUP, ROUTING, TRANSPORTS } from './rule-sources.js';

const refuses = { refuses: true } as const;
const ROUTING_DID = '`routing_did`: DID of the mediator where forwarded messages should be sent.';
const ACTION = '`action`: one of `add` or `remove`.';
const PAGINATE = '`paginate`: is optional, and if present must include `limit` and `offset`.';
const PAGINATION = '`pagination`: is optional, and if present must include `count`, `offset` and `remaining`.';

export const MEDIATION_ROWS: RowSpec[] = [
  // ---- Message Pickup 3.0: the mediator's answers ---------------------------------------------
  row('messagepickup.status.scoped', PICKUP('Status Request'), 'MUST', '`recipient_did` is optional. When specified, the `mediator` **MUST** only return status related to that recipient did.',
    "A status-request naming recipient_did is answered with the count of that DID's messages only; without it, with the requester's."),
  row('messagepickup.status.recipient_did-echo', PICKUP('Status'), 'MUST', 'If a `recipient_did` was specified in the `status-request message`, the matching value **MUST** be specified in the `recipient_did` attribute of the status message.',
    'A status answering a status-request that named recipient_did carries the same recipient_did.'),
  row('messagepickup.status.not-queued', PICKUP('Status'), 'MUST NOT', 'a status message **MUST NOT** be put on the pending message queue',
    'A status is never queued: no delivery carries one.'),
  row('messagepickup.delivery-request.empty-status', PICKUP('Delivery Request'), 'MUST', 'If no messages are available to be sent, a `status` message **MUST** be sent immediately.',
    'A delivery-request with nothing queued is answered with a status at once.'),
  row('messagepickup.delivery.limit', PICKUP('Delivery Request'), 'SHOULD', '`limit` is a **REQUIRED** attribute, and after receipt of this message, the `mediator` **SHOULD** deliver up to the limit indicated.',
    'A delivery holds at most `limit` messages, and all queued ones up to it.'),
  row('messagepickup.delivery.scoped', PICKUP('Delivery Request'), 'MUST', '`recipient_did` is optional. When specified, the `mediator` **MUST** only return messages sent to that recipient did.',
    'A delivery-request naming recipient_did delivers messages for that DID only.'),
  row('messagepickup.delivery.kept-until-received', PICKUP('Delivery Request'), 'MUST NOT', 'Delivered messages **MUST NOT** be deleted until delivery is acknowledged by a messages-received message.',
    'A delivered message stays queued (counted and delivered again) until messages-received names it.'),
  row('messagepickup.delivery.forwarded-payload', ROUTING('Rewrapping'), null, 'Normally, the payload attached to the `forward` message received by the mediator is transmitted directly to the receiver with no further packaging.',
    'The delivered attachment is the packed message the forward carried, unchanged, and opens for its recipient.'),
  row('messagepickup.messages-received.status', PICKUP('Messages Received'), 'SHOULD', 'The `mediator` **SHOULD** send an updated `status` message reflecting the changes to the queue.',
    'messages-received is answered with a status whose count no longer includes the messages it named.'),
  row('messagepickup.live-delivery-change.status', PICKUP('Live Mode Change'), 'MUST', 'Upon receiving the `live_delivery_change` message, the `mediator` **MUST* respond with a `status` message.',
    'live-delivery-change is answered with a status.'),
  row('messagepickup.live.persistent-only', PICKUP('Live Mode'), 'MUST', '_Live Mode_ **MUST** only be enabled when a persistent transport is used, such as WebSockets.',
    'Live mode asked for over HTTP is not enabled: no status says live_delivery true.'),
  row('messagepickup.live.not-supported-report', PICKUP('Live Mode Change'), 'SHOULD', 'If sent with `live_delivery` set to true on a connection incapable of live delivery, a `problem_report` **SHOULD** be sent as follows:',
    'Live mode asked for over HTTP is answered with problem report e.m.live-mode-not-supported.'),
  row('messagepickup.live.push', PICKUP('Basic Walkthrough'), null, 'When _Live Mode_ is enabled, messages that arrive when an existing connection exists are delivered over the connection immediately, rather than being pushed to the queue.',
    'With live mode on, a message forwarded afterwards arrives on the connection without a delivery-request.'),

  // ---- Coordinate Mediation 2.0 and 3.0 --------------------------------------------------------
  // 2.0's example grant names one DID (the Identus SDK refuses a list); 3.0's is a list.
  row('coordinate-mediation.mediate-grant.routing_did', MEDIATION_2('Mediate Grant'), null, ROUTING_DID,
    'A 2.0 mediate-grant carries routing_did: one DID string.', refuses),
  row('coordinate-mediation.mediate-grant.routing_did-list', MEDIATION_3('Mediate Grant'), null, ROUTING_DID,
    'A 3.0 mediate-grant carries routing_did: a non-empty list of DIDs.', refuses),
  row('coordinate-mediation.keylist-update.updates', MEDIATION_2('Keylist Update'), null, ACTION,
    'body.updates is a non-empty list of {recipient_did: a DID, action: add | remove}.', refuses),
  row('coordinate-mediation.recipient-update.updates', MEDIATION_3('Recipient Update'), null, ACTION,
    'body.updates is a non-empty list of {recipient_did: a DID, action: add | remove}.', refuses),
  row('coordinate-mediation.keylist-update-response.updated', MEDIATION_2('Keylist Response'), null, '`result`: one of `client_error`, `server_error`, `no_change`, `success`; describes the resulting state of the keylist update.',
    'body.updated lists {recipient_did, action, result: client_error | server_error | no_change | success}.', refuses),
  row('coordinate-mediation.recipient-update-response.updated', MEDIATION_3('Recipient Response'), null, '`result`: one of `client_error`, `server_error`, `no_change`, `success`; describes the resulting state of the Recipient update.',
    'body.updated lists {recipient_did, action, result: client_error | server_error | no_change | success}.', refuses),
  row('coordinate-mediation.keylist-query.paginate', MEDIATION_2('Keylist Query'), null, PAGINATE,
    'body.paginate, when present, holds limit and offset.', refuses),
  row('coordinate-mediation.recipient-query.paginate', MEDIATION_3('Recipient Query'), null, PAGINATE,
    'body.paginate, when present, holds limit and offset.', refuses),
  row('coordinate-mediation.keylist.keys', MEDIATION_2('Keylist'), null, 'Response to key list query, containing retrieved keys.',
    'body.keys is a list of {recipient_did}.', refuses),
  row('coordinate-mediation.keylist.pagination', MEDIATION_2('Keylist'), null, PAGINATION,
    'body.pagination, when present, holds count, offset and remaining.', refuses),
  row('coordinate-mediation.recipient.dids', MEDIATION_3('Recipient'), null, 'Response to recipient query, containing retrieved recipient DIDs.',
    'body.dids is a list of {recipient_did}.', refuses),
  row('coordinate-mediation.recipient.pagination', MEDIATION_3('Recipient'), null, PAGINATION,
    'body.pagination, when present, holds count, offset and remaining.', refuses),
  row('coordinate-mediation.answered', MEDIATION_2('Connectivity'), null, 'This protocol consists of three different message requests from the `recipient` that should be replied by the `mediator`:',
    'mediate-request, keylist-update and keylist-query are each answered by their reply in the same thread.'),
  row('coordinate-mediation.return-route', MEDIATION_2('Requirements'), null, 'The `return_route` extension must be supported by both agents (`recipient` and `mediator`).',
    'A request with return_route "all" is answered on the same connection (the HTTP response).'),
  row('coordinate-mediation.deny', MEDIATION_2('Basic Walkthrough'), null, 'If the `mediator` is willing to route messages, it will respond with a `mediate-grant` message, otherwise with a `mediate-deny` message.',
    'A mediate-request the mediator will not serve is answered with mediate-deny, not a grant.'),
  row('coordinate-mediation.keylist-current', MEDIATION_2('Basic Walkthrough'), null, 'The `keylist-update` and `keylist-query` methods are used over time to identify and remove keys that are no longer in use by the `recipient`.',
    'keylist-query lists the DIDs added and not removed since: an added DID appears, a removed one does not.'),
  row('coordinate-mediation.update-result', MEDIATION_2('Keylist Response'), null, '`result`: one of `client_error`, `server_error`, `no_change`, `success`; describes the resulting state of the keylist update.',
    'Each update gets the result it caused: success for a change, no_change for removing a DID not registered.'),

  // ---- Routing Protocol 2.0 --------------------------------------------------------------------
  row('routing.forward.next', ROUTING('Messages'), 'REQUIRED', '`next` - REQUIRED. The identifier of the party to send the attached message to.',
    'body.next is the DID or key id of the next hop.'),
  row('routing.forward.attachments', ROUTING('Messages'), 'REQUIRED', '`attachments` - REQUIRED. The DIDComm message(s) to send to the party indicated in the `next` body attribute.',
    'A forward carries attachments, each holding a packed DIDComm message.'),
  row('routing.forward.please_ack', ROUTING('Roles'), 'SHOULD NOT', 'The [`please_ack` header](#acks) SHOULD NOT be included on [`forward` messages](#messages)',
    'A forward carries no please_ack.'),
  row('routing.forward.delay_milli', ROUTING('Roles'), null, 'An additional header, `delay_milli` is also possible; this allows the sender to request that a mediator wait a specified number of milliseconds before delivering.',
    'delay_milli, when present, is an integer number of milliseconds.', refuses),
  // What a mediator does with a forward is told, not required: §Roles says it passes the payload on,
  // with no keyword, and §HTTPS's "A successful message receipt MUST return a code in the 2xx HTTPS
  // Status Code range" binds the status of a receipt, not what happens to the message after it.
  row('routing.forward.receipt', ROUTING('Roles'), null, 'The mediator unpacks (decrypts) the payload of an encrypted `forward` message and passes on the result (a blob that probably contains a differently encrypted payload) to the recipient.',
    'A forward to a registered DID is taken (2xx) and held for its recipient: picking up delivers it.'),
  row('routing.forward.unknown-next', MEDIATION_2('Mediate Grant'), null, 'After receiving a `mediate-grant` message the `recipient` should update his `recipient_did` with a `keylist-update` message',
    'A forward whose next no recipient registered is not accepted: it is refused (4xx or a problem report), never answered 2xx and lost.'),
  row('routing.forward.unsupported-header', ROUTING('Roles'), 'MAY', "If a mediator sees a header that requests behavior it doesn't support, it MAY return a problem-report to the sender identifying the unsupported feature, but it is not required to do so.",
    'A forward asking for a delay the mediator will not honour is refused, not delivered early.'),
  row('routing.forward.too-big', TRANSPORTS('Agent Constraint Disclosure'), null, 'It is recommended that the agent imposing the constraint send a problem report citing the constraint as the cause of a reception error.',
    'A forward larger than the mediator takes is refused with a problem report or HTTP 413 (over a WebSocket, which has no status: the socket closed with 1009), not answered 2xx.'),
];
