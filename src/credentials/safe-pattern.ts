// Safe profile patterns: the regular expressions a data profile may put on a datapoint, and
// testing values against them without letting one pattern stall the service (manifest.ts).
import { IdsyncError } from '../errors.js';

// Profile patterns are written by tenant admins and run on the service's event loop against
// user data, so a pattern that backtracks catastrophically (ReDoS: `(a|a)+$x` on 27 'a's blocks
// for seconds) would stall every tenant. Rather than time out a running RegExp (impossible on
// the event loop), patterns are checked when the profile is created and refused ('invalid_profile')
// unless they are:
//   - at most MAX_PATTERN_LENGTH characters;
//   - free of backreferences (\1, \k<name>) and lookarounds ((?=, (?!, (?<=, (?<!);
//   - free of nested quantifiers: a group repeated by *, +, {n,} or {n,m} (m > 1) may contain
//     neither a quantifier nor an alternation (`(a+)+`, `(a|aa)*`, `(\d?)+` are refused), which
//     rules out exponential backtracking;
//   - of bounded cost: the product over all quantifiers of (upper bound + 1), an unbounded one
//     counting as the longest value tested, times the number of branches of every alternation,
//     is at most MAX_PATTERN_COST (two `+` pass; `\d*\d*\d*x` and 19 `(1|\d)` in a row do not).
// Values tested against a pattern are at most MAX_PATTERN_VALUE_LENGTH characters; longer ones
// are invalid_format. Together these bound the paths one test can backtrack through (~2^18).
export const MAX_PATTERN_LENGTH = 200;
export const MAX_PATTERN_VALUE_LENGTH = 256;
const MAX_PATTERN_COST = 1 << 18;

interface PatternGroup {
  quantified: boolean;
  alternation: boolean;
  /** Alternatives at this level: 1 + the number of `|`. */
  branches: number;
}

const SIMPLE_ATOM: PatternGroup = { quantified: false, alternation: false, branches: 1 };
const COST_REFUSAL = 'its quantifiers and alternations could backtrack too much';

/** The quantifier at `i`, if any: its bounds and its length in the pattern (lazy `?` included). */
function quantifierAt(pattern: string, i: number): { max: number; length: number } | undefined {
  const c = pattern[i];
  let max: number;
  let length = 1;
  if (c === '*' || c === '+') max = Infinity;
  else if (c === '?') max = 1;
  else {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
    if (!m) return undefined;
    max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
    length = m[0].length;
  }
  if (pattern[i + length] === '?') length++;
  return { max, length };
}

/** Why `pattern` (already known to compile) is not safe to run, or undefined. See the rules above. */
export function patternRefusal(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `it is longer than ${MAX_PATTERN_LENGTH} characters`;
  const groups: PatternGroup[] = [{ quantified: false, alternation: false, branches: 1 }];
  let atom: PatternGroup | undefined;
  let cost = 1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const top = groups[groups.length - 1];
    if (c === '\\') {
      const next = pattern[i + 1];
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences are not allowed';
      const braced = 'pPu'.includes(next) && pattern[i + 2] === '{' ? pattern.indexOf('}', i + 2) : -1;
      i = braced >= 0 ? braced : i + 1;
      atom = SIMPLE_ATOM;
    } else if (c === '[') {
      let j = i + 1;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      i = j;
      atom = SIMPLE_ATOM;
    } else if (c === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(i))) return 'lookarounds are not allowed';
      groups.push({ quantified: false, alternation: false, branches: 1 });
      if (pattern.startsWith('(?:', i)) i += 2;
      else if (pattern.startsWith('(?<', i)) i = pattern.indexOf('>', i);
      atom = undefined;
    } else if (c === ')') {
      const inner = groups.pop()!;
      const outer = groups[groups.length - 1];
      outer.quantified ||= inner.quantified;
      outer.alternation ||= inner.alternation;
      cost *= inner.branches;
      if (cost > MAX_PATTERN_COST) return COST_REFUSAL;
      atom = inner;
    } else if (c === '|') {
      top.alternation = true;
      top.branches++;
      atom = undefined;
    } else {
      const q = atom ? quantifierAt(pattern, i) : undefined;
      if (!q) {
        atom = SIMPLE_ATOM;
        continue;
      }
      if (q.max > 1 && (atom!.quantified || atom!.alternation)) return 'a repeated group contains a quantifier or an alternation (nested quantifiers)';
      cost *= Math.min(q.max, MAX_PATTERN_VALUE_LENGTH) + 1;
      if (cost > MAX_PATTERN_COST) return COST_REFUSAL;
      top.quantified = true;
      i += q.length - 1;
      atom = undefined;
    }
  }
  return cost * groups[0].branches > MAX_PATTERN_COST ? COST_REFUSAL : undefined;
}

/** The pattern as an anchored RegExp; 'invalid_profile' when it does not compile or is not safe to run. */
export function compilePattern(field: string, pattern: string): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${pattern})$`, 'u');
  } catch (cause) {
    throw new IdsyncError('invalid_profile', `pattern of ${field} is not a valid regular expression`, { cause });
  }
  const refusal = patternRefusal(pattern);
  if (refusal) throw new IdsyncError('invalid_profile', `pattern of ${field} is refused: ${refusal}`, { details: { field } });
  return re;
}

/** Tests `value` against a field's pattern; a message when it fails or cannot be tested. */
export function patternProblem(key: string, pattern: string, value: string): string | undefined {
  if (value.length > MAX_PATTERN_VALUE_LENGTH) return `${key} is longer than ${MAX_PATTERN_VALUE_LENGTH} characters, the most a profile pattern is tested on`;
  let re: RegExp;
  try {
    re = compilePattern(key, pattern);
  } catch {
    // A profile stored before patterns were checked: fail closed rather than run it.
    return `${key}: the profile's pattern is not accepted`;
  }
  return re.test(value) ? undefined : `${key} does not match the profile's pattern`;
}
