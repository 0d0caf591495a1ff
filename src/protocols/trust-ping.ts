// Trust Ping 2.0 (DIDComm v2 §Trust Ping Protocol): a ping that asks for a response, and a
// ping-response threaded to it. Proves the channel (envelopes, keys, endpoints) works.
import { createMessage, type MessageDeps } from '../didcomm/message.js';
import type { ProtocolModule, Router } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import { request, type RequestOptions } from './await-reply.js';

export const TRUST_PING_PIURI = 'https://didcomm.org/trust-ping/2.0';
export const TRUST_PING = {
  ping: `${TRUST_PING_PIURI}/ping`,
  pingResponse: `${TRUST_PING_PIURI}/ping-response`,
} as const;

export interface PingInput {
  to?: string;
  from?: string;
  /** Default true (§Trust Ping: response_requested defaults to true). */
  responseRequested?: boolean;
}

export function createPing(input: PingInput, deps: MessageDeps): PlainMessage {
  return createMessage(
    {
      type: TRUST_PING.ping,
      from: input.from,
      to: input.to ? [input.to] : undefined,
      body: { response_requested: input.responseRequested ?? true },
    },
    deps,
  );
}

/** The response to `ping`: thid = the ping's id. */
export function createPingResponse(ping: PlainMessage, deps: MessageDeps, from?: string): PlainMessage {
  return createMessage({ type: TRUST_PING.pingResponse, thid: ping.id, from, to: ping.from ? [ping.from] : undefined, body: {} }, deps);
}

export interface TrustPingOptions {
  onPing?: (ping: PlainMessage) => void | Promise<void>;
  onResponse?: (response: PlainMessage) => void | Promise<void>;
}

export function trustPingProtocol(options: TrustPingOptions = {}): ProtocolModule {
  return {
    piuri: TRUST_PING_PIURI,
    roles: ['sender', 'receiver'],
    handlers: {
      ping: async (ctx) => {
        await options.onPing?.(ctx.message);
        ctx.emit('trust-ping', { message: ctx.message });
        if (ctx.message.body?.response_requested !== false) await ctx.reply({ type: TRUST_PING.pingResponse, body: {} });
      },
      'ping-response': async (ctx) => {
        ctx.emit('trust-ping-response', { message: ctx.message });
        await options.onResponse?.(ctx.message);
      },
    },
  };
}

/**
 * Pings `to` through `router` and resolves with the response; rejects with
 * 'problem_reported' when the peer answers with a problem report, 'timeout' without answer.
 * The router needs the trust-ping protocol registered to receive the response.
 */
export async function ping(router: Router, to: string, options: RequestOptions = {}): Promise<{ ping: PlainMessage; response: PlainMessage }> {
  const { request: sent, response } = await request(router, { type: TRUST_PING.ping, body: { response_requested: true } }, 'trust-ping-response', { ...options, to });
  return { ping: sent, response };
}
