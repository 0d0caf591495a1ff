// The rule catalogue: every conformance rule idsync checks, as data. Each rule has a stable id
// (what ConformanceResult.rule, details.rule of a refusal and the message log carry), a layer, a
// severity (a MUST is an error, a SHOULD a warning), the spec and section it comes from, a link,
// and one sentence. `idsync rules` prints it, docs/rules.md is generated from it
// (`npm run docs:rules`), and test/conformance/catalogue.test.ts fails when code checks a rule
// that is not here.
import { CATALOGUE_ENTRIES, type CatalogueRule } from './catalogue-entries.js';

export type { CatalogueRule, RuleLayer, RuleSeverity, RuleSource } from './catalogue-entries.js';

export const RULES: readonly CatalogueRule[] = CATALOGUE_ENTRIES;

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

/** The catalogue entry of `id`, or undefined for an id the catalogue lacks. */
export function ruleOf(id: string): CatalogueRule | undefined {
  return BY_ID.get(id);
}

/** The anchor a rule has in docs/rules.md and in HTML reports. */
export function ruleAnchor(id: string): string {
  return `rule-${id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/**
 * A rule's link as a reader outside docs/ can follow it. The Data Pipe rows link to the protocol's
 * own spec, docs/protocols.md, relative to docs/ (so docs/rules.md links work on any checkout);
 * `idsync rules`, report.json and report.html are read elsewhere, so there the link becomes the
 * file:// URL of the docs shipped with the package (src/ and dist/ both sit one level under it).
 */
export function ruleLink(url: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  return new URL(`../../docs/${url}`, import.meta.url).href;
}

/** `idsync rules --json`: `{"rules": [{id, layer, severity, spec, section, url, text}]}`. */
export function rulesDocument(): { rules: CatalogueRule[] } {
  return { rules: RULES.map((r) => ({ id: r.id, layer: r.layer, severity: r.severity, spec: r.spec, section: r.section, url: ruleLink(r.url), text: r.text })) };
}
