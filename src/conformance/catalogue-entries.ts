// The rows of the rule catalogue (catalogue.ts), assembled from the rows-*.ts files. Each row quotes
// the normative sentence it enforces; its severity is not written by hand but follows from the
// RFC 2119 keyword of that quote: MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT → error; SHOULD,
// SHOULD NOT, RECOMMENDED, NOT RECOMMENDED → warning; MAY, OPTIONAL or no keyword (idsync's own
// profile, good practice, interop advice) → advice.
import type { Keyword, RowSpec } from './rule-row.js';
import type { RuleSource } from './rule-sources.js';
import { APPLICATION_ROWS } from './rows-application.js';
import { ENVELOPE_ROWS } from './rows-envelope.js';
import { OOB_ROWS, PLAINTEXT_ROWS } from './rows-plaintext.js';
import { MEDIATION_ROWS } from './rows-mediation.js';
import { PROTOCOL_ROWS } from './rows-protocols.js';

export type { Keyword } from './rule-row.js';
export type { RuleSource } from './rule-sources.js';

export type RuleLayer = 'envelope' | 'plaintext' | 'oob' | 'protocol' | 'credential' | 'transport';

/**
 * `error`: a MUST (MUST NOT, REQUIRED, SHALL) of the spec is broken; `warning`: a SHOULD (SHOULD NOT,
 * RECOMMENDED); `advice`: no keyword (or MAY, OPTIONAL): shown, never failing unless the profile is strict.
 */
export type RuleSeverity = 'error' | 'warning' | 'advice';

export interface CatalogueRule extends RuleSource {
  id: string;
  layer: RuleLayer;
  severity: RuleSeverity;
  /** The RFC 2119 keyword as it appears in the quote; null when it has none. */
  keyword: Keyword | null;
  /** The sentence of the spec this rule enforces, verbatim ("…" shortens it). */
  quote: string;
  /** What idsync checks, in one sentence. */
  text: string;
  /** idsync's own agents refuse a message breaking this rule whatever its severity (catalogue rows say why). */
  refuses?: true;
  /** idsync's own agents take a message breaking this rule (its verdict stands; catalogue rows say why). */
  tolerated?: true;
}

/** The severity an RFC 2119 keyword gives. */
export function severityOfKeyword(keyword: Keyword | null): RuleSeverity {
  switch (keyword) {
    case 'MUST':
    case 'MUST NOT':
    case 'REQUIRED':
    case 'SHALL':
    case 'SHALL NOT':
      return 'error';
    case 'SHOULD':
    case 'SHOULD NOT':
    case 'RECOMMENDED':
    case 'NOT RECOMMENDED':
      return 'warning';
    default:
      return 'advice';
  }
}

function layerOf(id: string): RuleLayer {
  const head = id.split('.')[0]!;
  if (head === 'envelope' || head === 'from_prior') return 'envelope';
  if (head === 'plaintext') return 'plaintext';
  if (head === 'oob') return 'oob';
  if (head === 'transport') return 'transport';
  if (head === 'credential') return 'credential';
  return 'protocol';
}

const toRule = (r: RowSpec): CatalogueRule => ({
  id: r.id,
  layer: layerOf(r.id),
  severity: severityOfKeyword(r.keyword),
  keyword: r.keyword,
  quote: r.quote,
  ...r.source,
  text: r.text,
  ...(r.refuses ? { refuses: true as const } : {}),
  ...(r.tolerated ? { tolerated: true as const } : {}),
});

export const CATALOGUE_ENTRIES: CatalogueRule[] = [...ENVELOPE_ROWS, ...PLAINTEXT_ROWS, ...OOB_ROWS, ...PROTOCOL_ROWS, ...APPLICATION_ROWS, ...MEDIATION_ROWS].map(toRule);
