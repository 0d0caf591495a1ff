// The catalogue and the source agree: every error code src/ throws or passes is in the catalogue,
// and every catalogue entry is used somewhere (or is marked reserved, with its reason).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERRORS, type ErrorEntry } from '../../src/errors.js';
import { codeTakers, codeUses, readSources, tokenize } from './source-codes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sources = readSources(ROOT, `${ROOT}src`, (file) => file === 'src/errors/catalogue.ts');
const takers = codeTakers(sources);
const uses = codeUses(sources, takers);
const entries = Object.entries(ERRORS) as [string, ErrorEntry][];

describe('error codes in the source', () => {
  it('finds every function that takes a code, by its ErrorCode parameter', () => {
    // The walk is only as good as this list: these are the helpers that take a code today.
    for (const [name, position] of [
      ['IdsyncError', 0],
      ['HttpProblem', 0],
      ['problem', 0],
      ['problemWithStatus', 0],
      ['protocolError', 0],
      ['toIdsyncError', 1],
      ['usageError', 0],
      ['checkSchema', 2],
      ['problemResponse', 0],
      ['problemCodeOf', 0],
      ['httpStatusOf', 0],
    ] as const) {
      expect(takers.get(name), name).toContain(position);
    }
  });

  it('reads codes from calls, ternaries, typed tables and parameter defaults, not from comparisons', () => {
    const src = `
      function raise(n: number, code: ErrorCode) {}
      raise(1, ok ? 'a_code' : 'b_code');
      raise(2, x.layer === 'not_a_code' ? 'c_code' : y ?? 'd_code');
      const T: Readonly<Record<string, ErrorCode>> = { 'key.not.code': 'e_code', other: 'f_code' };
      const F: Record<string, { code: HttpErrorCode; detail: string }> = { A: { code: 'g_code', detail: 'not a code' } };
      function h(detail: string, code: ErrorCode = 'h_code') {}
      // raise(3, 'in_a_comment')
      const re = /raise\\(4, 'in_a_regex'\\)/;
    `;
    const file = [{ file: 'x.ts', tokens: tokenize(src) }];
    const found = codeUses(file, codeTakers(file)).map((u) => u.code);
    expect(found.sort()).toEqual(['a_code', 'b_code', 'c_code', 'd_code', 'e_code', 'f_code', 'g_code', 'h_code']);
  });

  it('has every code that src/ throws or passes in the catalogue', () => {
    const unknown = uses.filter((u) => !Object.hasOwn(ERRORS, u.code)).map((u) => `${u.code} (${u.file}:${u.line})`);
    expect(unknown).toEqual([]);
    expect(uses.length).toBeGreaterThan(300);
  });

  it('uses every catalogue entry somewhere in src/, or marks it reserved with a reason', () => {
    const used = new Set(uses.map((u) => u.code));
    expect(entries.filter(([code, e]) => !e.reserved && !used.has(code)).map(([code]) => code)).toEqual([]);
    // A reserved entry that src/ uses is no longer reserved: drop the mark.
    expect(entries.filter(([code, e]) => e.reserved && used.has(code)).map(([code]) => code)).toEqual([]);
  });
});
