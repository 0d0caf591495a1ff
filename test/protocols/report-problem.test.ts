import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { PROBLEM_CODE } from '../../src/conformance/protocol-rules.js';
import { checkMessage } from '../../src/conformance/registry.js';
import { errorsOf } from '../../src/conformance/types.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { ERRORS, IdsyncError, type ErrorEntry } from '../../src/errors.js';
import {
  PROBLEM_REPORT,
  commentFor,
  createProblemReport,
  interpolate,
  parseProblemReport,
  problemFromError,
  problemReportDraft,
} from '../../src/protocols/report-problem.js';

const deps = { clock: new ManualClock(), ids: sequentialIds('p') };

describe('report-problem 2.0', () => {
  it('interpolates args: {n} is args[n-1], missing ones become ?, extra ones are appended', () => {
    expect(interpolate('Unable to use the {1} endpoint for {2}.', ['https://a.example', 'did:example:x'])).toBe('Unable to use the https://a.example endpoint for did:example:x.');
    expect(interpolate('A {1} and {2}.', ['one'])).toBe('A one and ?.');
    expect(interpolate('A {1}.', ['one', 'two', 'three'])).toBe('A one. two, three');
    expect(interpolate('A {1}.', [null])).toBe('A ?.');
  });

  it('builds a problem report with pthid, ack and the body fields, and refuses a bad code', () => {
    const m = createProblemReport(
      { code: 'e.p.xfer.cant-use-endpoint', comment: 'Unable to use the {1} endpoint.', args: ['https://x.example'], escalate_to: 'mailto:admin@example.org', pthid: 't-1', ack: ['m-1'] },
      deps,
    );
    expect(m).toMatchObject({ type: PROBLEM_REPORT, pthid: 't-1', ack: ['m-1'], body: { code: 'e.p.xfer.cant-use-endpoint', escalate_to: 'mailto:admin@example.org' } });
    expect(m.thid).toBeUndefined();
    expect(errorsOf(checkMessage(m))).toEqual([]);
    expect(() => createProblemReport({ code: 'E.Bad Code', pthid: 't' }, deps)).toThrow(expect.objectContaining({ code: 'invalid_problem_code' }));
  });

  it('answers a message in a child thread of its thread (pthid = thid ?? id)', () => {
    const inThread = { id: 'm-2', thid: 't-9', type: 'https://x.example/p/1.0/a', from: 'did:example:a', body: {} } as PlainMessage;
    expect(problemReportDraft(inThread, { code: 'e.p.me' })).toMatchObject({ pthid: 't-9', ack: ['m-2'], to: ['did:example:a'] });
    const first = { id: 'm-3', type: 'https://x.example/p/1.0/a', body: {} } as PlainMessage;
    expect(problemReportDraft(first, { code: 'e.p.me' })).toMatchObject({ pthid: 'm-3', to: undefined });
  });

  it('parses sorter, scope and descriptors and interpolates the comment', () => {
    const m = createProblemReport({ code: 'w.m.req.time.late', comment: 'Late by {1}.', args: ['5s'], pthid: 't' }, deps);
    expect(parseProblemReport(m)).toMatchObject({ sorter: 'warning', scope: 'm', descriptors: ['req', 'time', 'late'], text: 'Late by 5s.', pthid: 't' });
    const bare = createProblemReport({ code: 'e.p.trust.crypto', pthid: 't' }, deps);
    expect(parseProblemReport(bare).text).toBe('Cryptographic operation failed.');
    expect(() => parseProblemReport({ ...m, pthid: undefined })).toThrow(expect.objectContaining({ code: 'invalid_problem_report' }));
    expect(() => parseProblemReport({ ...m, type: 'https://x.example/p/1.0/a' })).toThrow(expect.objectContaining({ code: 'invalid_problem_report' }));
  });

  it('reads a code whose descriptors name members every object inherits as a code it has no comment for', () => {
    // A lookup in a plain object would find Object.prototype's constructor, a valid descriptor.
    expect(commentFor('e.p.req.constructor')).toBe(commentFor('e.p.req'));
    for (const code of ['e.p.constructor', 'w.m.constructor']) {
      const m = createProblemReport({ code, pthid: 't' }, deps);
      expect(commentFor(code)).toBeUndefined();
      expect(parseProblemReport(m)).toMatchObject({ code, text: code });
    }
    for (const code of ['e.p.toString', 'e.p.__proto__', 'e.p.hasOwnProperty']) expect(commentFor(code)).toBeUndefined();
  });

  it('maps error codes to problem codes from the error catalogue, all of them valid codes', () => {
    for (const entry of Object.values(ERRORS) as ErrorEntry[]) if (entry.problem !== undefined) expect(entry.problem).toMatch(PROBLEM_CODE);
    expect(problemFromError(new IdsyncError('did_not_resolved', 'no DID doc for did:example:x'))).toEqual({
      code: 'e.p.did.not-resolved',
      comment: 'DID is unusable. {1}',
      args: ['no DID doc for did:example:x'],
    });
    expect(problemFromError(new IdsyncError('message_expired', 'x', { details: { expires_time: 0 } }))).toMatchObject({ code: 'e.m.req.time.expired', args: ['1970-01-01T00:00:00.000Z'] });
    expect(problemFromError(new IdsyncError('unsupported_message_type', 'x', { details: { type: 'T' } }))).toMatchObject({ args: ['T'] });
  });

  it('lets an error name its own problem code, and hides internal errors', () => {
    expect(problemFromError(new IdsyncError('internal_error', 'bad format', { details: { problemCode: 'e.m.msg.credential-format' } })).code).toBe('e.m.msg.credential-format');
    expect(problemFromError(new IdsyncError('internal_error', 'x', { details: { problemCode: 'NOT VALID' } })).code).toBe('e.p.me');
    expect(problemFromError(new IdsyncError('store_error', 'disk /var/x failed'))).toEqual({ code: 'e.p.me.res.storage', comment: 'A required resource is inadequate or unavailable.' });
    expect(problemFromError(new Error('boom at /srv'))).toEqual({ code: 'e.p.me', comment: 'Internal error.' });
  });

  it('keeps the comment static per code (DIDComm v2 §Problem Reports)', () => {
    const a = problemFromError(new IdsyncError('not_found', 'no credential 1'));
    const b = problemFromError(new IdsyncError('not_found', 'no workflow 2'));
    expect(a.comment).toBe(b.comment);
    expect(commentFor('e.p.legal.injunction')).toBe('Failed for legal reasons.');
    expect(commentFor('e.p.unknown-thing')).toBeUndefined();
  });
});
