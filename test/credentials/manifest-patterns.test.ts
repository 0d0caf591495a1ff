import { describe, expect, it } from 'vitest';
import { createDataProfile, MAX_PATTERN_VALUE_LENGTH, patternRefusal, validateDatapoints, type DataProfile } from '../../src/credentials/manifest.js';

const profileWith = (pattern: string) => createDataProfile({ id: 'p', name: 'p', fields: [{ key: 'firstName', required: true, pattern }] });

describe('data profile patterns (ReDoS)', () => {
  it('refuses patterns that can backtrack catastrophically at profile creation', () => {
    const dangerous = {
      // the audit's pattern: 27 'a's blocked the event loop for 12 s
      'quantified alternation': '(a|a)+$x',
      'nested quantifiers': '(a+)+',
      'nested quantifier in a counted group': '(?:\\d?){2,9}',
      'overlapping alternation repeated': '(?:1|11)*',
      'backreference': '(a)\\1',
      'named backreference': '(?<x>a)\\k<x>',
      'lookahead': '(?=a)a',
      'negative lookbehind': '(?<!b)a',
      'three unbounded quantifiers in a row': '\\d*\\d*\\d*x',
      'long chain of optional atoms': 'a?'.repeat(20) + 'a'.repeat(20),
      'long chain of alternations': '(?:1|\\d)'.repeat(19) + 'x',
      'too long': 'a'.repeat(201),
    };
    for (const [name, pattern] of Object.entries(dangerous)) {
      expect(() => profileWith(pattern), name).toThrow(expect.objectContaining({ code: 'invalid_profile' }));
    }
  });

  it('accepts ordinary patterns', () => {
    for (const pattern of ['\\d{5}', '[A-Z]{2}\\d{2}[A-Z0-9]{1,30}', '\\p{L}+', '[A-Z][a-z]+(?: [A-Z][a-z]+)?', '(?:Mr|Mrs|Ms|Dr)', '.+@example\\.com', '\\+?\\d{7,15}', '[^\\]()|*+]+']) {
      expect(patternRefusal(pattern), pattern).toBeUndefined();
      expect(() => profileWith(pattern), pattern).not.toThrow();
    }
  });

  it('reads escapes and character classes as single atoms', () => {
    // `(`, `|` and `+` inside a class or escaped are literals, not groups or quantifiers.
    expect(patternRefusal('[(|+]+\\(\\|')).toBeUndefined();
    expect(patternRefusal('\\p{Lu}\\u{1F600}?')).toBeUndefined();
    expect(patternRefusal('(?<name>ab)?c')).toBeUndefined();
  });

  it('tests at most 256 characters against a pattern', () => {
    const p = profileWith('a+');
    expect(validateDatapoints(p, { firstName: 'a'.repeat(MAX_PATTERN_VALUE_LENGTH) }).ok).toBe(true);
    const long = validateDatapoints(p, { firstName: 'a'.repeat(MAX_PATTERN_VALUE_LENGTH + 1) });
    expect(long.errors).toMatchObject([{ field: 'firstName', code: 'invalid_format', message: expect.stringContaining('longer than 256') }]);
  });

  it('does not run a dangerous pattern of a profile stored before the check', () => {
    // A profile as it may come back from a store written by an older version.
    const stored: DataProfile = { ...profileWith('a+'), fields: [{ key: 'firstName', required: true, pattern: '(a|a)+$x' }] };
    const started = Date.now();
    const result = validateDatapoints(stored, { firstName: 'a'.repeat(22) });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.errors).toMatchObject([{ field: 'firstName', code: 'invalid_format', message: expect.stringContaining('not accepted') }]);
  });
});
