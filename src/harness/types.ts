// What a conformance run produces: cases with their steps, the messages exchanged and the rules
// each broke (ids of the rule catalogue, conformance/catalogue.ts), and a summary.
import type { EnvelopeMode } from '../didcomm/types.js';

export type CaseStatus = 'passed' | 'failed' | 'skipped' | 'inconclusive';

/** One message on the wire, as the sequence diagrams draw it. */
export interface ExchangedMessage {
  seq: number;
  /** From the harness to the agent under test, or back. */
  direction: 'sent' | 'received';
  /** Milliseconds since the run started. */
  atMs: number;
  /** `http-post`: what the harness POSTed; `return-route`: the body of its HTTP answer; `endpoint`: POSTed to the harness's endpoint. */
  via: 'http-post' | 'return-route' | 'endpoint';
  /** The envelope mode; `unreadable` for what could not be opened (junk, tampered, for someone else). */
  mode: EnvelopeMode | 'unreadable';
  type?: string;
  id?: string;
  thid?: string;
  pthid?: string;
  /** The HTTP status the agent answered a POST with. */
  httpStatus?: number;
  /** report-problem code of a problem report. */
  problemCode?: string;
  /** A short label of what the harness did on purpose (e.g. "ciphertext tampered"). */
  note?: string;
  /** Rules (catalogue ids) this message itself broke, errors only. */
  broken?: string[];
}

export interface BrokenRule {
  rule: string;
  /** The catalogue row's: error (a MUST), warning (a SHOULD) or advice (no keyword). */
  severity: 'error' | 'warning' | 'advice';
  detail: string;
  /** The message (ExchangedMessage.seq) that shows it, drawn in red in the diagrams. */
  seq?: number;
}

/** What a case declares about itself: the same in its definition and in its result. */
export interface CaseInfo {
  id: string;
  suite: string;
  title: string;
  /** The spec section the case exercises, and its link. */
  section: string;
  url: string;
  steps: string[];
}

export interface CaseResult extends CaseInfo {
  status: CaseStatus;
  /** Why it was skipped or inconclusive, or a summary of what failed. */
  detail?: string;
  /** Catalogue ids of the rules that failed the case: the MUSTs broken (and, under the strict profile, the SHOULDs and advice too). */
  failedRules: string[];
  /** Catalogue ids of the SHOULDs broken (a case with only these passes, unless the profile is strict). */
  warnings: string[];
  /** Catalogue ids of the advice not followed (no RFC 2119 keyword: shown, failing only under the strict profile). */
  advice?: string[];
  broken: BrokenRule[];
  messages: ExchangedMessage[];
  durationMs: number;
}

export interface ConformanceSummary {
  passed: number;
  failed: number;
  skipped: number;
  inconclusive: number;
}

export interface ConformanceReport {
  target: string;
  /** The harness's role: the counterpart it played. */
  role: string;
  /** The harness's own DID in this run. */
  harnessDid: string;
  startedAt: string;
  durationMs: number;
  cases: CaseResult[];
  summary: ConformanceSummary;
}
