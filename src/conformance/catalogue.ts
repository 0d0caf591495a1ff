// The rule catalogue: every conformance rule idsync checks, as data. Each rule has a stable id
// (what ConformanceResult.rule, details.rule of a refusal and the message log carry), a layer, the
// sentence of the spec it enforces (quoted, with its RFC 2119 keyword, spec, version, section and
// link) and a severity that follows from the keyword. `idsync rules` prints it, docs/rules.md is
// generated from it (`npm run docs:rules`), and test/conformance/catalogue.test.ts fails when code
// checks a rule that is not here or when a quote is not in the spec it names.
import { CATALOGUE_ENTRIES, type CatalogueRule, type RuleSeverity } from './catalogue-entries.js';

export type { CatalogueRule, Keyword, RuleLayer, RuleSeverity, RuleSource } from './catalogue-entries.js';
export { severityOfKeyword } from './catalogue-entries.js';

export const RULES: readonly CatalogueRule[] = CATALOGUE_ENTRIES;

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

/** The catalogue entry of `id`, or undefined for an id the catalogue lacks. */
export function ruleOf(id: string): CatalogueRule | undefined {
  return BY_ID.get(id);
}

/**
 * The severity of rule `id`, from its catalogue row. An id the catalogue lacks (a rule a user
 * registered for a protocol of their own) counts as an error: it was written to be enforced.
 */
export function severityOf(id: string): RuleSeverity {
  return BY_ID.get(id)?.severity ?? 'error';
}

/** The anchor a rule has in docs/rules.md and in HTML reports. */
export function ruleAnchor(id: string): string {
  return `rule-${id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/**
 * A rule's link as a reader outside the project can follow it: the public URL of its spec
 * section, or, for idsync's own protocols and profile, the path of the doc inside the idsync
 * package (docs/protocols.md#…). Never a path of this machine.
 */
export function ruleLink(url: string): string {
  return url;
}

/** `idsync rules --json`: `{"rules": [{id, layer, severity, keyword, quote, spec, version, section, url, text, refuses?, tolerated?}]}`. */
export function rulesDocument(): { rules: Array<Omit<CatalogueRule, 'file'>> } {
  return {
    rules: RULES.map((r) => ({
      id: r.id,
      layer: r.layer,
      severity: r.severity,
      keyword: r.keyword,
      quote: r.quote,
      spec: r.spec,
      version: r.version,
      section: r.section,
      url: ruleLink(r.url),
      text: r.text,
      ...(r.refuses ? { refuses: true as const } : {}),
      ...(r.tolerated ? { tolerated: true as const } : {}),
    })),
  };
}
