// The feature registry: what this agent really supports (protocols with roles, goal codes,
// DIDComm versions, headers). The router fills it as protocols are registered, and
// discover-features answers from it, never from a hard-coded list.
import { DIDCOMM_V2_VERSION, ROUTER_HEADERS, type Router } from '../router/router.js';

/** Discover Features 2.0 feature types an implementation must recognise. */
export const FEATURE_TYPES = ['protocol', 'goal-code', 'gov-fw', 'didcomm-version', 'header'] as const;

/** A disclosure object of Discover Features 2.0. */
export interface Feature {
  'feature-type': string;
  id: string;
  roles?: string[];
}

export interface FeatureRegistry {
  /** Adds a feature; adding the same one again merges its roles. */
  add(feature: Feature): void;
  remove(featureType: string, id: string): void;
  has(featureType: string, id: string): boolean;
  list(featureType?: string): Feature[];
  /** Features of `featureType` whose id matches `pattern` (`*` matches any run of characters). */
  query(featureType: string, pattern: string): Feature[];
}

/**
 * Discover Features 2.0 §queries: `match` may use the `*` wildcard anywhere. Matched in linear
 * time, without a regular expression: a pattern of many `*` made one ('^.*.*…x$') backtrack for
 * minutes on one query, with every request of the process waiting behind it. Each `*` matches
 * any run of characters; the pieces between them are found left to right, each at its first
 * place after the one before (greedy matching of literal pieces needs no backtracking).
 */
export function matchesPattern(pattern: string, id: string): boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return pattern === id;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (id.length < first.length + last.length || !id.startsWith(first) || !id.endsWith(last)) return false;
  let at = first.length;
  const end = id.length - last.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    const found = id.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

function copy(f: Feature): Feature {
  return f.roles ? { ...f, roles: [...f.roles] } : { ...f };
}

export function createFeatureRegistry(initial: Feature[] = []): FeatureRegistry {
  const features = new Map<string, Feature>();
  const key = (type: string, id: string) => `${type}\u0000${id}`;
  const registry: FeatureRegistry = {
    add(feature) {
      const k = key(feature['feature-type'], feature.id);
      const existing = features.get(k);
      if (!existing) {
        features.set(k, copy(feature));
        return;
      }
      if (feature.roles) existing.roles = [...new Set([...(existing.roles ?? []), ...feature.roles])];
    },
    remove(featureType, id) {
      features.delete(key(featureType, id));
    },
    has(featureType, id) {
      return features.has(key(featureType, id));
    },
    list(featureType) {
      return [...features.values()].filter((f) => featureType === undefined || f['feature-type'] === featureType).map(copy);
    },
    query(featureType, pattern) {
      return registry.list(featureType).filter((f) => matchesPattern(pattern, f.id));
    },
  };
  for (const f of initial) registry.add(f);
  return registry;
}

/** What the router really supports, right now: its protocols with roles, goal codes, DIDComm v2 and the headers it honours. */
export function featuresOf(router: Pick<Router, 'protocols'>, extra: Feature[] = []): FeatureRegistry {
  const registry = createFeatureRegistry();
  registry.add({ 'feature-type': 'didcomm-version', id: DIDCOMM_V2_VERSION });
  for (const h of ROUTER_HEADERS) registry.add({ 'feature-type': 'header', id: h });
  for (const p of router.protocols()) {
    registry.add(p.roles ? { 'feature-type': 'protocol', id: p.piuri, roles: p.roles } : { 'feature-type': 'protocol', id: p.piuri });
    for (const g of p.goalCodes ?? []) registry.add({ 'feature-type': 'goal-code', id: g });
  }
  for (const f of extra) registry.add(f);
  return registry;
}
