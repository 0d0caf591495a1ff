// A conformance result as a verdict a person reads: pass, warning, advice or fail, with the rule's
// entry in the catalogue (text, spec section, link; the quoted sentence where the catalogue
// carries one). The severity a result carries follows the rule's RFC 2119 keyword: a broken MUST
// fails, a broken SHOULD warns, a rule without a keyword advises.
import { ruleOf } from '../conformance/catalogue.js';

export type Verdict = 'pass' | 'advice' | 'warning' | 'fail';

export const VERDICTS: readonly Verdict[] = ['pass', 'advice', 'warning', 'fail'];

/** The part of a logged conformance result a verdict needs (store/messages.ts ConformanceResult). */
export interface CheckedRule {
  rule: string;
  ok: boolean;
  detail?: string;
  severity?: string;
  layer?: string;
}

export function verdictOf(r: CheckedRule): Verdict {
  if (r.ok) return 'pass';
  if (r.severity === 'warning') return 'warning';
  if (r.severity === 'advice') return 'advice';
  return 'fail';
}

/** The worst verdict of a message's results ('pass' when it has none). */
export function worstVerdict(results: readonly CheckedRule[] | undefined): Verdict {
  let worst = 0;
  for (const r of results ?? []) worst = Math.max(worst, VERDICTS.indexOf(verdictOf(r)));
  return VERDICTS[worst]!;
}

export interface RuleView {
  id: string;
  text?: string;
  /** The spec sentence the rule enforces, once the catalogue carries it. */
  quote?: string;
  keyword?: string;
  spec?: string;
  section?: string;
  /** An absolute link to the spec section; a link into the package's own docs stays a path. */
  href?: string;
  docPath?: string;
}

export function ruleView(id: string): RuleView {
  const entry = ruleOf(id);
  if (!entry) return { id };
  const absolute = /^https?:\/\//i.test(entry.url);
  return {
    id,
    text: entry.text,
    ...(entry.quote ? { quote: entry.quote } : {}),
    ...(entry.keyword ? { keyword: entry.keyword } : {}),
    spec: entry.version ? `${entry.spec} ${entry.version}` : entry.spec,
    section: entry.section,
    ...(absolute ? { href: entry.url } : { docPath: entry.url.startsWith('docs/') ? entry.url : `docs/${entry.url}` }),
  };
}
