// The error catalogue's guarantees: one well-formed entry per code, a misspelt code refused at
// compile time, and the HTTP mapping, the problem reports and the CLI line all taking status and
// problem code from it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorLine } from '../../src/cli/errors.js';
import { PROBLEM_CODE } from '../../src/conformance/protocol-rules.js';
import { asErrorCode, ERRORS, httpStatusOf, IdsyncError, isErrorCode, problemCodeOf, type ErrorCode, type ErrorEntry } from '../../src/errors.js';
import { problemFromError } from '../../src/protocols/report-problem.js';
import { problem, problemWithStatus, toProblem } from '../../src/service/http/problem.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const entries = Object.entries(ERRORS) as [ErrorCode, ErrorEntry][];

/** Runs tsc on one snippet that imports src/errors.ts; returns its diagnostics ('' when it compiles). */
function compile(snippet: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'idsync-codes-'));
  try {
    writeFileSync(join(dir, 'snippet.ts'), `import { IdsyncError } from '${join(ROOT, 'src/errors.js')}';\n${snippet}\n`);
    const options = { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: [], noEmit: true, skipLibCheck: true };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['snippet.ts'] }));
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the error catalogue', () => {
  it('has one well-formed entry per code', () => {
    for (const [code, e] of entries) {
      expect(code, code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(e.meaning, code).toMatch(/^[^\n]{10,200}\.$/);
      if (e.status !== undefined) {
        expect(e.status, code).toBeGreaterThanOrEqual(400);
        expect(e.status, code).toBeLessThan(600);
        expect(e.title, `${code} has a status, so it needs an RFC 9457 title`).toMatch(/^\S.{2,80}$/);
      } else expect(e.title, `${code} never reaches HTTP: no title`).toBeUndefined();
      if (e.problem !== undefined) expect(e.problem, code).toMatch(PROBLEM_CODE);
      if (e.reserved !== undefined) expect(e.reserved.length, code).toBeGreaterThan(10);
    }
  });

  it('refuses an unknown code at compile time', () => {
    // @ts-expect-error: 'no_such_code' is not a key of the catalogue (tsc fails if this line compiles).
    const typo = new IdsyncError('no_such_code', 'x');
    expect(typo).toBeInstanceOf(IdsyncError);
    expect(compile(`new IdsyncError('user_not_found', 'ok');`)).toBe('');
    const refused = compile(`new IdsyncError('user_not_fund', 'typo');`);
    expect(refused).toMatch(/error TS2345: Argument of type '"user_not_fund"' is not assignable/);
  });

  it('refuses problem() for a code that never reaches HTTP, at compile time', () => {
    // @ts-expect-error: store_locked has no HTTP status, so problem() does not take it.
    expect(problem('store_locked', 'x').status).toBe(500);
  });

  it('looks up a code’s HTTP status and report-problem code', () => {
    expect(httpStatusOf('user_not_found')).toBe(404);
    expect(httpStatusOf('temporarily_unavailable')).toBe(503);
    expect(httpStatusOf('store_locked')).toBe(500);
    expect(problemCodeOf('duplicate_message')).toBe('e.p.msg.duplicate');
    expect(problemCodeOf('store_locked')).toBe('e.p.me.res.storage');
    expect(problemCodeOf('no_endpoint')).toBe('e.p.xfer');
    expect(problemCodeOf('busy')).toBe('e.p.me');
    expect(isErrorCode('user_not_found')).toBe(true);
    expect(isErrorCode('constructor')).toBe(false);
    expect(isErrorCode('User_Not_Found')).toBe(false);
    expect(asErrorCode('sync_disabled', 'service_problem')).toBe('sync_disabled');
    expect(asErrorCode('vendor.specific', 'service_problem')).toBe('service_problem');
    expect(asErrorCode(undefined, 'wallet_serve_error')).toBe('wallet_serve_error');
  });

  it('maps every code to HTTP from the catalogue: its status and title, or a 500 that reveals nothing', () => {
    for (const [code, e] of entries) {
      const { status, body } = toProblem(new IdsyncError(code, `detail of ${code}`), '/x');
      if (e.status !== undefined) {
        expect({ status, code: body.code, title: body.title, detail: body.detail }, code).toEqual({ status: e.status, code, title: e.title, detail: `detail of ${code}` });
      } else {
        expect({ status, code: body.code, detail: body.detail }, code).toEqual({ status: 500, code: 'internal_error', detail: 'an unexpected error occurred' });
      }
    }
    expect(problem('workflow_expired', 'late').status).toBe(410);
    // The one override: a status that comes from elsewhere, documented at problemWithStatus.
    expect(toProblem(problemWithStatus('invalid_request', 405, 'no'), '/x').status).toBe(405);
  });

  it('maps every code to a problem report from the catalogue, e.p.me when it has none', () => {
    for (const [code, e] of entries) expect(problemFromError(new IdsyncError(code, 'x')).code, code).toBe(e.problem ?? 'e.p.me');
  });

  it('prints every code as it is on the CLI error line', () => {
    for (const [code] of entries) expect(errorLine(new IdsyncError(code, 'a\nb'))).toBe(`idsync: ${code}: a b`);
  });

  it('defines each report-problem code for one meaning only, except the ones shared on purpose', () => {
    const byProblem = new Map<string, string[]>();
    for (const [code, e] of entries) if (e.problem) byProblem.set(e.problem, [...(byProblem.get(e.problem) ?? []), code]);
    expect(byProblem.get('e.p.msg.duplicate')).toEqual(['duplicate_message']);
    const shared = [...byProblem].filter(([, codes]) => codes.length > 1).map(([p, codes]) => `${p}: ${codes.join(', ')}`);
    // Several failures of ours are one refusal to a peer (DIDComm v2 §Problem Codes descriptors).
    expect(shared.sort()).toEqual([
      'e.m.msg.malformed: json_too_deep, invalid_message, message_malformed',
      'e.m.trust.crypto: didcomm_malformed, envelope_nonconformant',
      'e.p.me.res.storage: store_error, store_locked',
      'e.p.req.invalid-state: conflict, invalid_state',
      // A DID not enrolled with the mediator: the party asking (keylist, pickup), or the forward's next.
      'e.p.req.not-enrolled: mediation_required, forward_unknown_recipient',
      'e.p.trust: unauthorized, sender_not_authenticated',
      'e.p.xfer: transport_error, no_endpoint, delivery_failed',
    ]);
  });
});
