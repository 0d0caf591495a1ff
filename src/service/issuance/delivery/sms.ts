// SMS invitations through an HTTP gateway, used when the service is given a gateway URL:
// POST <url> with JSON {to, text}; any 2xx is accepted. (A thin adapter in front of a real
// provider maps this to its API; the testbed uses a local server.)
import { IdsyncError } from '../../../errors.js';
import { configUrl } from '../../config/config-url.js';

export interface SmsSender {
  send(message: { to: string; text: string }): Promise<{ messageId?: string }>;
}

export interface SmsSenderOptions {
  gatewayUrl: string;
  fetch?: typeof fetch;
  /** Extra headers, e.g. an API key for the gateway. */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export function createSmsSender(options: SmsSenderOptions): SmsSender {
  const doFetch = options.fetch ?? globalThis.fetch;
  const url = configUrl(options.gatewayUrl, 'SMS gateway URL', ['http:', 'https:']);
  return {
    async send({ to, text }) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
          body: JSON.stringify({ to, text }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
      } catch (cause) {
        throw new IdsyncError('sms_send_failed', 'SMS gateway unreachable', { cause });
      }
      const body = await res.text().catch(() => '');
      if (res.status < 200 || res.status >= 300) throw new IdsyncError('sms_send_failed', `SMS gateway answered HTTP ${res.status}`);
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
