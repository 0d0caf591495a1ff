// Discover Features 2.0 (DIDComm v2 §Discover Features Protocol 2.0): queries with
// feature-type and `*` match patterns; disclosures answered from what the router really
// has registered (protocols/registry.ts featuresOf), optionally filtered per peer.
import type { HandlerContext, ProtocolModule, Router } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { request, type RequestOptions } from './await-reply.js';
import { FEATURE_TYPES, featuresOf, matchesPattern, type Feature } from './registry.js';

export const DISCOVER_FEATURES_PIURI = 'https://didcomm.org/discover-features/2.0';
export const DISCOVER_FEATURES = {
  queries: `${DISCOVER_FEATURES_PIURI}/queries`,
  disclose: `${DISCOVER_FEATURES_PIURI}/disclose`,
} as const;

export interface FeatureQuery {
  'feature-type': string;
  match: string;
}

/** The disclosures answering `queries` from `available` (unrecognised feature types are ignored). */
export function answerQueries(queries: FeatureQuery[], available: Feature[]): Feature[] {
  const out = new Map<string, Feature>();
  for (const q of queries) {
    if (!(FEATURE_TYPES as readonly string[]).includes(q['feature-type'])) continue;
    for (const f of available) {
      if (f['feature-type'] !== q['feature-type']) continue;
      if (matchesPattern(q.match, f.id)) out.set(`${f['feature-type']}\u0000${f.id}`, f);
    }
  }
  return [...out.values()];
}

export function parseDisclosures(message: PlainMessage): Feature[] {
  const d = message.body?.disclosures;
  if (!Array.isArray(d)) throw new IdsyncError('message_invalid_body', 'disclose has no disclosures array');
  return d.filter(
    (f): f is Feature => typeof f === 'object' && f !== null && typeof f['feature-type'] === 'string' && typeof f.id === 'string',
  );
}

export interface DiscoverFeaturesOptions {
  /** Features beyond the registered protocols (goal codes, governance frameworks, ...). */
  extra?: Feature[] | (() => Feature[]);
  /** Selective disclosure (§Privacy Considerations): what to reveal to this peer. */
  disclose?: (features: Feature[], ctx: HandlerContext) => Feature[] | Promise<Feature[]>;
  onDisclose?: (features: Feature[], message: PlainMessage) => void | Promise<void>;
}

export function discoverFeaturesProtocol(options: DiscoverFeaturesOptions = {}): ProtocolModule {
  return {
    piuri: DISCOVER_FEATURES_PIURI,
    roles: ['requester', 'responder'],
    handlers: {
      queries: async (ctx) => {
        const queries = (ctx.message.body.queries as FeatureQuery[]) ?? [];
        const extra = typeof options.extra === 'function' ? options.extra() : options.extra ?? [];
        let features = answerQueries(queries, featuresOf(ctx.router, extra).list());
        if (options.disclose) features = await options.disclose(features, ctx);
        await ctx.reply({ type: DISCOVER_FEATURES.disclose, body: { disclosures: features } });
      },
      disclose: async (ctx) => {
        const features = parseDisclosures(ctx.message);
        ctx.emit('disclose', { message: ctx.message, features });
        await options.onDisclose?.(features, ctx.message);
      },
    },
  };
}

/** Asks `to` which features match `queries`; resolves with its disclosures. */
export async function discoverFeatures(router: Router, to: string, queries: FeatureQuery[], options: RequestOptions = {}): Promise<Feature[]> {
  const { response } = await request(router, { type: DISCOVER_FEATURES.queries, body: { queries } }, 'disclose', { ...options, to });
  return parseDisclosures(response);
}
