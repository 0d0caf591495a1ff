// One row of the rule catalogue as written in the rows-*.ts files: the rule id, the source it
// quotes, the RFC 2119 keyword as it appears in the quote (null when the quote has none), the
// quote itself, and one sentence saying what idsync checks. Severity is not written here: it
// follows from the keyword (catalogue-entries.ts).
import type { RuleSource } from './rule-sources.js';

/** The RFC 2119 / RFC 8174 keywords. */
export const KEYWORDS = ['MUST NOT', 'MUST', 'REQUIRED', 'SHALL NOT', 'SHALL', 'SHOULD NOT', 'SHOULD', 'NOT RECOMMENDED', 'RECOMMENDED', 'MAY', 'OPTIONAL'] as const;
export type Keyword = (typeof KEYWORDS)[number];

export interface RowSpec {
  id: string;
  source: RuleSource;
  keyword: Keyword | null;
  /** The normative sentence, verbatim; "…" may shorten it, markdown links may be reduced to their text. */
  quote: string;
  /** What a conforming message or agent does, as idsync checks it (one sentence). */
  text: string;
  /**
   * idsync's own agents refuse a message that breaks this rule whatever its severity: they cannot
   * act on it (a body field their handlers need). A local policy, not a verdict on the sender.
   */
  refuses?: true;
  /**
   * idsync's own agents take a message that breaks this rule, as if it had not: the verdict on
   * the sender stands (the message log, `message check` and the harness report it), but acting on
   * the message is safe and refusing it would stop a flow over a field with a plain default.
   */
  tolerated?: true;
}

export function row(id: string, source: RuleSource, keyword: Keyword | null, quote: string, text: string, options: { refuses?: true; tolerated?: true } = {}): RowSpec {
  return { id, source, keyword, quote, text, ...options };
}
