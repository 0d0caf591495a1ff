// Trust Ping 2.0 (DIDComm v2.1 §Trust Ping Protocol 2.0): a ping asking for a response gets one,
// threaded to it; a ping with response_requested false gets none.
import { awaitAnswer, barrier, broke, inconclusive, messageRules, noteClosed, ok, ordinary, ping, PING_RESPONSE, socketClosed, transportRules, unanswered, type CaseDefinition } from '../case-kit.js';

const SECTION = 'DIDComm Messaging v2.1 §Trust Ping Protocol 2.0';
const URL = 'https://identity.foundation/didcomm-messaging/spec/v2.1/#trust-ping-protocol-20';

export const TRUST_PING_CASES: CaseDefinition[] = [
  {
    id: 'trust-ping/response',
    suite: 'trust-ping',
    title: 'A ping with response_requested true is answered by a ping-response threaded to it',
    section: SECTION,
    url: URL,
    steps: ['send a ping in the run\'s mode, response_requested true', 'wait for a ping-response', 'its thid is the ping id; it is itself conformant'],
    judges: ['trust-ping.response-thid'],
    needs: ['mode', 'ping'],
    async run(c) {
      const { message, outcome } = await ping(c);
      await ordinary(c, outcome, message, 'the ping');
      const broken = transportRules(outcome, 'the ping');
      // Any ping-response after this ping: one threaded elsewhere is this answer, threaded wrongly.
      const answer = await awaitAnswer(c, outcome, (r) => r.message?.type === PING_RESPONSE && r.entry.seq > outcome.entry.seq);
      if (!answer) {
        c.blocked.set('ping', `no ping-response${unanswered(c, outcome)} (trust-ping/response): the absence of an answer cannot be observed`);
        return inconclusive(`no ping-response${unanswered(c, outcome)}`, broken);
      }
      if (answer.message!.thid !== message.id) broken.push(broke('trust-ping.response-thid', `the ping-response has thid ${String(answer.message!.thid)}, not the ping id ${message.id}`, answer.entry.seq));
      return { broken: [...broken, ...messageRules(answer, 'the ping-response')] };
    },
  },
  {
    id: 'trust-ping/no-response',
    suite: 'trust-ping',
    title: 'A ping with response_requested false gets no ping-response',
    section: SECTION,
    url: URL,
    steps: ['send a ping, response_requested false', 'send an ordinary ping (the barrier) and wait for its response', 'no ping-response was threaded to the first ping'],
    judges: ['trust-ping.no-response'],
    needs: ['mode', 'ping'],
    async run(c) {
      const { message, outcome } = await ping(c, { responseRequested: false });
      await ordinary(c, outcome, message, 'the ping');
      const broken = transportRules(outcome, 'the ping');
      if (!(await barrier(c))) return inconclusive('the barrier ping went unanswered: the absence of a response cannot be observed', broken);
      const answer = c.cp.received.find((r) => r.message?.thid === message.id && r.message.type === PING_RESPONSE);
      if (answer) broken.push(broke('trust-ping.no-response', 'a ping-response answered a ping with response_requested false', answer.entry.seq));
      return broken.length ? { broken } : ok();
    },
  },
  {
    id: 'transport/redirect-followed',
    suite: 'transport',
    title: 'A message the harness answers with 307 Temporary Redirect is POSTed again to the Location',
    section: 'DIDComm Messaging v2.1 §Transports (HTTPS)',
    url: 'https://identity.foundation/didcomm-messaging/spec/v2.1/#https',
    steps: [
      'answer the next POST to the harness\'s endpoint with 307 and a Location on the same server, without reading it',
      'send a ping in the run\'s mode, response_requested true',
      'the POST answered 307 comes again at the Location, the same bytes',
    ],
    judges: ['transport.redirect-followed'],
    needs: ['mode', 'ping'],
    async run(c) {
      const redirect = c.cp.redirectNext();
      try {
        const { message, outcome } = await ping(c, { note: 'the next POST to the harness is answered 307' });
        await ordinary(c, outcome, message, 'the ping');
        const broken = transportRules(outcome, 'the ping');
        // Over a WebSocket the POST to redirect is the ping's answer, and none comes once the target
        // has closed the socket the ping went on (RFC 6455 §7.4.1; see socketClosed): the wait for
        // it ends there, as awaitAnswer's does.
        if (await redirect.followed(c.timeoutMs, outcome.socket?.closed)) return broken.length ? { broken } : ok();
        const answered = redirect.answered();
        if (!answered) {
          noteClosed(outcome);
          if (outcome.received.length) return inconclusive('the agent answered on the return route: it POSTed nothing to redirect', broken);
          return inconclusive(`no POST from the agent${unanswered(c, outcome)}${socketClosed(outcome) ? ';' : ':'} nothing was redirected`, broken);
        }
        // It dropped what got the 307, or sent it again where it first went.
        const again = c.cp.received.some((r) => r.via === 'endpoint' && r.entry.seq > answered.seq);
        return { broken: [...broken, broke('transport.redirect-followed', `the POST answered 307 did not come again at ${redirect.location} within ${c.timeoutMs} ms${again ? '; the agent went on POSTing to the endpoint it first used' : ''}`, answered.seq)] };
      } finally {
        redirect.cancel();
      }
    },
  },
];
