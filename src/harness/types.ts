// What a conformance run produces: cases with their steps, the messages exchanged (with the HTTP
// answers they got) and the rules each broke (ids of the rule catalogue, conformance/catalogue.ts),
// and a summary.
import type { RuleSeverity } from '../conformance/catalogue.js';
import type { Profile } from '../conformance/types.js';
import type { EnvelopeMode } from '../didcomm/types.js';

/**
 * `failed`: a rule broke whose severity fails a case (a MUST; any rule under --profile strict);
 * `expected`: failed only on rule+case pairs the user listed as expected failures (--expect);
 * `blocked`: a prerequisite was refused (the envelope mode, the agent's endpoint), so the case did
 * not run; `skipped`: it does not apply; `inconclusive`: an awaited answer did not come in time.
 */
export type CaseStatus = 'passed' | 'failed' | 'expected' | 'blocked' | 'skipped' | 'inconclusive';

export const CASE_STATUSES: readonly CaseStatus[] = ['passed', 'failed', 'expected', 'blocked', 'skipped', 'inconclusive'];

/** Which rules fail a case: `liberal` the errors (MUST), `strict` every rule broken (conformance/types.ts). */
export type RunProfile = Profile;

/** The envelope the harness packs a message in: the modes of the envelope layer, and a flattened JWS. */
export type HarnessMode = EnvelopeMode | 'signed-flattened';

/** An HTTP answer to a POST, as it came: its status, content type and the start of its body. */
export interface HttpAnswer {
  status: number;
  contentType?: string;
  /** The first HTTP_BODY_KEPT characters of the body. */
  body: string;
  /** The body was longer than what is kept. */
  truncated?: boolean;
  /** The body was read as a DIDComm message (a 2xx with a DIDComm media type, or a requested return route). */
  readAsMessage?: boolean;
}

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
  mode: HarnessMode | 'unreadable';
  type?: string;
  id?: string;
  thid?: string;
  pthid?: string;
  /** The HTTP status the agent answered a POST with. */
  httpStatus?: number;
  /** The whole HTTP answer (status, content type, start of the body). */
  http?: HttpAnswer;
  /** report-problem code of a problem report. */
  problemCode?: string;
  /** A short label of what the harness did on purpose (e.g. "ciphertext tampered"). */
  note?: string;
  /** Rules (catalogue ids) this message itself broke, errors only. */
  broken?: string[];
  /** Every rule this message broke, any severity, with what was found. */
  findings?: Array<{ rule: string; severity: RuleSeverity; detail: string }>;
  /** The plaintext: what the harness packed, or what it opened; for what it could not open, nothing. */
  plaintext?: string;
  /** The start of the text on the wire (the packed message). */
  wire?: string;
  /** The protected headers of the outer layer, decoded (one per JWS signature). */
  protectedHeaders?: Array<Record<string, unknown>>;
  /** What opening the message showed (envelope mode, sender and recipient keys, algorithms), or why it did not open. */
  opened?: string;
  /** The case whose verdict counts this message (for a received one). */
  caseId?: string;
}

export interface BrokenRule {
  rule: string;
  severity: RuleSeverity;
  detail: string;
  /** The message (ExchangedMessage.seq) that shows it, drawn in red in the diagrams. */
  seq?: number;
  /** Listed as an expected failure of this case (--expect). */
  expected?: boolean;
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
  /** The rules the case judges itself (besides the catalogue checks of every message it receives). */
  judges?: string[];
}

export interface CaseResult extends CaseInfo {
  status: CaseStatus;
  /** Why it was skipped, blocked or inconclusive, or a summary of what failed. */
  detail?: string;
  /** Catalogue ids of the rules broken that fail the case (MUSTs; all under --profile strict). */
  failedRules: string[];
  /** Catalogue ids of the SHOULDs broken (a case with only these passes). */
  warnings: string[];
  /** Catalogue ids of advice broken (no RFC 2119 keyword; shown, never failing by default). */
  advice?: string[];
  broken: BrokenRule[];
  /** What is worth knowing and breaks no rule: a mode refused where the spec leaves it to the agent, a protocol not probed… */
  notes?: string[];
  messages: ExchangedMessage[];
  durationMs: number;
}

export type ConformanceSummary = Record<CaseStatus, number>;

/** A listed expected failure (--expect) that did not happen. */
export interface UnseenExpectation {
  case: string;
  rule: string;
  reason?: string;
}

export interface ConformanceReport {
  target: string;
  /** The harness's role: the counterpart it played. */
  role: string;
  /** The harness's own DID in this run. */
  harnessDid: string;
  /** The envelope the cases used (--mode) and the profile. */
  mode?: HarnessMode;
  profile?: RunProfile;
  startedAt: string;
  durationMs: number;
  cases: CaseResult[];
  summary: ConformanceSummary;
  /** Expected failures (--expect) that did not happen: the agent now passes them. */
  unseenExpected?: UnseenExpectation[];
  /** How many messages from the agent each catalogue rule was checked on (held or broken). */
  rulesChecked?: Record<string, number>;
}
