// Catalogue rows of DIDComm's own protocols (trust ping, discover features, problem reports),
// of the transport, and of the checker itself.
import { row } from './rule-row.js';

const refuses = { refuses: true } as const;
import { DISCOVER_FEATURES, IDSYNC_PROFILE, PROBLEMS, THREADING, TRANSPORTS, TRUST_PING, WEBSOCKET } from './rule-sources.js';

/** DIDComm v2.1 §Threads: the MUST every answer in a thread meets. */
export const THREADS = THREADING('Threads');
export const THREADED_QUOTE = 'All subsequent messages in a thread MUST include a `thid` header that contains the same value as the `thid` set in the first message of the thread.';

const REPORTS = PROBLEMS('Problem Reports');
const PTHID = '`pthid` - REQUIRED. The value is the `thid` of the thread in which the problem occurred.';
const NOT_REQUESTING = 'If false, the `sender` is not requesting a `ping-response` from the `receiver`.';

export const PROTOCOL_ROWS = [
  row('trust-ping.response_requested', TRUST_PING('ping'), null, '**response_requested**: default value is `true`.',
    'body.response_requested, when present, is a boolean (default true).', refuses),
  row('trust-ping.response', TRUST_PING('ping-response'), null, 'When the message arrives at the receiver, assuming that `response_requested` is not `false`, the receiver should reply as quickly as possible with a `ping-response` message that looks like this:',
    'A ping with response_requested true (or absent) is answered with a ping-response.'),
  row('trust-ping.response-thid', THREADS, 'MUST', THREADED_QUOTE,
    'A ping-response carries thid = the id of the ping it answers.'),
  row('trust-ping.no-response', TRUST_PING('ping'), null, NOT_REQUESTING,
    'A ping with response_requested false gets no ping-response (the spec says only that none is requested).'),
  row('discover-features.queries', DISCOVER_FEATURES('`query` Message Type'), null, 'Queries messages contain one or more **query objects** in the `queries` array.',
    'body.queries is a non-empty array of {feature-type, match} strings.', refuses),
  row('discover-features.disclosures', DISCOVER_FEATURES('`disclose` Message Type'), null, 'The `disclosures` field is a JSON array of zero or more **disclosure objects** that describe a feature.',
    'body.disclosures is an array of {feature-type, id, roles?}.', refuses),
  row('discover-features.disclose-thid', THREADS, 'MUST', THREADED_QUOTE,
    'A disclose carries thid = the id of the queries it answers.'),
  row('discover-features.disclosed-supported', DISCOVER_FEATURES('`disclose` Message Type'), null, 'Disclosures messages say, "Here are some features I support (that matched your queries)."',
    'A protocol the agent discloses is one it supports: its messages are not refused as an unsupported type.'),
  row('report-problem.pthid', REPORTS, 'REQUIRED', PTHID,
    'A problem report carries pthid.'),
  row('report-problem.pthid-thread', REPORTS, 'REQUIRED', PTHID,
    'The pthid of a problem report is the thread (thid, else id) of the message that caused it.'),
  row('report-problem.code', REPORTS, 'REQUIRED', '`code` - REQUIRED. Deserves a rich explanation; see [Problem Codes](#problem-codes) below.',
    'body.code is present: a string.'),
  row('report-problem.code-format', PROBLEMS('Problem Codes'), null, 'Problem codes are lower kebab-case. They are structured as a sequence of tokens delimited by the dot character `.`, with the tokens being more general to the left, and more specific to the right.',
    'body.code is <e|w>.<scope>.<descriptors>, in lower kebab-case tokens separated by dots.', refuses),
  row('report-problem.code-descriptor', PROBLEMS('Descriptors'), 'SHOULD', 'Senders of problem reports SHOULD include at least one descriptor in their problem code, and SHOULD use the most specific descriptor they can.',
    'A problem code has at least one descriptor after sorter and scope.'),
  row('report-problem.comment', REPORTS, null, 'Contains human-friendly text describing the problem.',
    'body.comment, when present, is a string.', refuses),
  row('report-problem.args', REPORTS, 'OPTIONAL', '`args` - OPTIONAL. Contains situation-specific values that are interpolated into the value of `comment`, providing extra detail for human readers.',
    'body.args, when present, is an array of strings.', refuses),
  row('report-problem.escalate_to', REPORTS, 'OPTIONAL', '`escalate_to` - OPTIONAL. Provides a URI where additional help on the issue can be received.',
    'body.escalate_to, when present, is a URI.', refuses),
  row('report-problem.reply', REPORTS, null, 'Using this mechanism is therefore not a general *requirement* of DIDComm, but it *is* a best practice because it improves robustness and human experience.',
    'A message refused from a sender who can be reached is answered with a problem report, not silence.'),

  row('transport.reachable', TRANSPORTS('HTTPS'), 'MUST', 'A successful message receipt MUST return a code in the 2xx HTTPS Status Code range.',
    'The DIDComm endpoint of the DID document answers an HTTP POST of a packed message (2xx on receipt).'),
  row('transport.redirect-followed', TRANSPORTS('HTTPS'), 'SHOULD', 'HTTPS Redirects SHOULD be followed.',
    'A sender whose POST of a message is answered 307 Temporary Redirect POSTs the same message again to the Location.'),
  row('transport.redirect-temporary', TRANSPORTS('HTTPS'), null, 'Only temporary redirects (307) are acceptable.',
    'An endpoint that redirects a POSTed message answers 307 Temporary Redirect, not 301, 302, 303 or 308 (a permanent move belongs in the DID document).'),
  // A WebSocket has no status to refuse with: the close frame's code is the transport's word.
  row('transport.ws-close-too-big', WEBSOCKET('§7.4.1 Defined Status Codes', 'section-7.4.1'), null, '1009 indicates that an endpoint is terminating the connection because it has received a message that is too big for it to process.',
    'An endpoint that will not take a WebSocket frame for its size closes the socket with 1009 (Message Too Big), and has taken nothing of it.'),
  row('transport.no-server-error', IDSYNC_PROFILE('idsync profile'), null, 'An endpoint answers input it cannot accept with a 4xx status, never a 5xx: a 5xx says that the receiver itself failed.',
    'An endpoint answers what it cannot accept with 2xx or 4xx; a 5xx says the receiver itself failed.'),

  row('conformance.rule-crashed', IDSYNC_PROFILE('idsync profile'), null, 'A conformance rule that throws is reported and checking goes on: a defect of the checker, not of the message.',
    'A rule that throws is reported and checking goes on; it judges the checker, not the message.'),
];
