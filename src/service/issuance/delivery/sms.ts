// SMS invitations through an HTTP gateway, used when the service is given a gateway URL:
// POST <url> with JSON {to, text}; any 2xx is accepted. (A thin adapter in front of a real
// provider maps this to its API; the testbed uses a local server.)
import { IdsyncError } from '../../../errors.js';
import { readBounded } from '../../../http-fetch.js';
import { configUrl } from '../../config/config-url.js';
import type { HostResolver } from '../../../net/connect-guard.js';
import { endpointFetch, WEBHOOK_ENDPOINT_POLICY } from '../../net/endpoint-policy.js';

/** A gateway's answer is an id at most: anything longer is not read (an endless body filled memory). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SmsSender {
  send(message: { to: string; text: string }): Promise<{ messageId?: string }>;
}

export interface SmsSenderOptions {
  gatewayUrl: string;
  fetch?: typeof fetch;
  /** Extra headers, e.g. an API key for the gateway. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** How host names are looked up before the connection is checked (tests). */
  resolveHost?: HostResolver;
}

export function createSmsSender(options: SmsSenderOptions): SmsSender {
  // The gateway is the operator's, so loopback and private addresses are fine (as for webhooks);
  // link-local and metadata addresses are not, and redirects are not followed: a gateway
  // answering 307 to 169.254.169.254 had the invitation and the phone number POSTed there.
  const doFetch = options.fetch ?? endpointFetch(() => WEBHOOK_ENDPOINT_POLICY, options.resolveHost);
  const url = configUrl(options.gatewayUrl, 'SMS gateway URL', ['http:', 'https:']);
  // fetch refuses a URL with a user name or password: every SMS would fail as unreachable.
  if (url.username !== '' || url.password !== '') throw new IdsyncError('invalid_config', 'SMS gateway URL must not carry a user name or password (give an API key as a header instead)');
  return {
    async send({ to, text }) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
          body: JSON.stringify({ to, text }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
          redirect: 'manual',
        });
      } catch (cause) {
        throw new IdsyncError('sms_send_failed', 'SMS gateway unreachable', { cause });
      }
      if (res.status < 200 || res.status >= 300) {
        await res.body?.cancel().catch(() => undefined);
        throw new IdsyncError('sms_send_failed', `SMS gateway answered HTTP ${res.status}`);
      }
      // Past the bound, or cut off: the SMS was taken (2xx), its id is only not known.
      const body = (await readBounded(res, MAX_ANSWER_BYTES, () => new Error('too large')).catch(() => Buffer.alloc(0))).toString('utf8');
      let messageId: string | undefined;
      try {
        const j = JSON.parse(body) as { id?: unknown; messageId?: unknown };
        const v = j.messageId ?? j.id;
        if (typeof v === 'string' || typeof v === 'number') messageId = String(v);
      } catch {
        // Gateways need not answer JSON.
      }
      return messageId ? { messageId } : {};
    },
  };
}
