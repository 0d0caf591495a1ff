// Finds every error code src/ passes to something that takes one, by reading the source: a
// small TypeScript tokenizer (strings, templates, comments, regular expressions) and three
// kinds of use:
//  - an argument, at the position of a parameter typed ErrorCode / HttpErrorCode, of a call to
//    a function, method or class that declares one (found here too, so a new helper counts);
//  - the initializer of a declaration typed with ErrorCode (`const CODES: Record<string, ErrorCode>`,
//    `let code: ErrorCode = a ? 'x' : 'y'`, a parameter default), or its `code:` members when the
//    type is an object that holds one;
//  - any string literal at the top level of such an argument or initializer (ternaries, `??`).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

type Kind = 'str' | 'tpl' | 'word' | 'punct';
interface Token {
  kind: Kind;
  text: string;
  /** Value of a string literal (or a template without substitutions). */
  value?: string;
  line: number;
}

export interface CodeUse {
  code: string;
  file: string;
  line: number;
}

const CODE_TYPE = /\b(?:Http)?ErrorCode\b/;
const REGEX_BEFORE = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '&&', '||', '??', 'return', 'typeof', '=>']);

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  const push = (kind: Kind, text: string, value?: string) => out.push({ kind, text, value, line });
  const last = () => out[out.length - 1];
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      line += (src.slice(i, stop).match(/\n/g) ?? []).length;
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\') {
          value += src[j + 1];
          j += 2;
        } else value += src[j++];
      }
      push('str', src.slice(i, j + 1), value);
      i = j + 1;
    } else if (c === '`') {
      // Skips ${…} with nested braces and strings inside; a template with substitutions has no value.
      let j = i + 1;
      let plain = true;
      while (j < src.length && src[j] !== '`') {
        if (src[j] === '\\') j += 2;
        else if (src.startsWith('${', j)) {
          plain = false;
          let depth = 1;
          j += 2;
          while (j < src.length && depth > 0) {
            if (src[j] === '{') depth++;
            else if (src[j] === '}') depth--;
            else if (src[j] === "'" || src[j] === '"' || src[j] === '`') {
              const q = src[j];
              j++;
              while (j < src.length && src[j] !== q) j += src[j] === '\\' ? 2 : 1;
            }
            j++;
          }
        } else {
          if (src[j] === '\n') line++;
          j++;
        }
      }
      const text = src.slice(i, j + 1);
      push('tpl', text, plain ? text.slice(1, -1) : undefined);
      i = j + 1;
    } else if (c === '/' && (!last() || REGEX_BEFORE.has(last()!.text))) {
      // A regular expression literal: skip it, classes included ([/'] holds no end).
      let j = i + 1;
      let inClass = false;
      while (j < src.length && (inClass || src[j] !== '/') && src[j] !== '\n') {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        j++;
      }
      j++;
      while (/[a-z]/.test(src[j] ?? '')) j++;
      push('punct', 'REGEX');
      i = j;
    } else if (/[A-Za-z_$0-9]/.test(c)) {
      let j = i;
      while (j < src.length && /[A-Za-z_$0-9]/.test(src[j]!)) j++;
      push('word', src.slice(i, j));
      i = j;
    } else {
      const three = src.slice(i, i + 3);
      const two = src.slice(i, i + 2);
      const op = ['...', '===', '!=='].includes(three) ? three : ['=>', '&&', '||', '??', '?.', '==', '!=', '<=', '>='].includes(two) ? two : c;
      push('punct', op);
      i += op.length;
    }
  }
  return out;
}

const OPEN: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Index of the token that closes the bracket at `open`. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    const t = tokens[k]!.text;
    if (OPEN[t]) depth++;
    else if (t === ')' || t === ']' || t === '}') if (--depth === 0) return k;
  }
  return tokens.length - 1;
}

/** The top-level comma-separated parts of tokens[from, to). Angle brackets of types count as nesting. */
function split(tokens: Token[], from: number, to: number): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (let k = from; k < to; k++) {
    const t = tokens[k]!;
    if (OPEN[t.text] || t.text === '<') depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}' || (t.text === '>' && depth > 0)) depth--;
    if (t.text === ',' && depth === 0) parts.push([]);
    else parts[parts.length - 1]!.push(t);
  }
  return parts;
}

/** String literals outside any bracket of `part` (ternary branches, `??` fallbacks). */
function topLevelStrings(part: Token[]): Token[] {
  const out: Token[] = [];
  let depth = 0;
  for (const t of part) {
    if (OPEN[t.text]) depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
    else if (depth === 0 && t.value !== undefined && !compared(part, part.indexOf(t))) out.push(t);
  }
  return out;
}

const COMPARISON = new Set(['===', '!==', '==', '!=']);

/** Whether the literal at `i` is an operand of a comparison (`layer === 'protocol' ? … : …`), not a value. */
function compared(tokens: Token[], i: number): boolean {
  return COMPARISON.has(tokens[i - 1]?.text ?? '') || COMPARISON.has(tokens[i + 1]?.text ?? '');
}

/** The parameter positions typed with ErrorCode in a parameter list, or none. */
function codeParams(params: Token[][]): number[] {
  return params.flatMap((p, i) => {
    const colon = p.findIndex((t) => t.text === ':');
    const eq = p.findIndex((t) => t.text === '=');
    const type = p.slice(colon + 1, eq < 0 ? undefined : eq);
    return colon > 0 && type.some((t) => CODE_TYPE.test(t.text)) ? [i] : [];
  });
}

/** From the `>` that ends type arguments at `k`, the index before their `<`; else `k`. */
function skipTypeArguments(tokens: Token[], k: number): number {
  if (tokens[k]?.text !== '>') return k;
  let depth = 0;
  for (let m = k; m >= 0; m--) {
    if (tokens[m]!.text === '>') depth++;
    else if (tokens[m]!.text === '<' && --depth === 0) return m - 1;
  }
  return k;
}

/** The index of the `(` of a call whose name ends before `k` (`f(` or `f<T>(`), or -1. */
function callOpen(tokens: Token[], k: number): number {
  if (tokens[k]?.text === '(') return k;
  if (tokens[k]?.text !== '<') return -1;
  let depth = 0;
  for (let m = k; m < tokens.length && m < k + 40; m++) {
    const x = tokens[m]!.text;
    if (x === '<') depth++;
    else if (x === '>' && --depth === 0) return tokens[m + 1]?.text === '(' ? m + 1 : -1;
    else if (x === ';' || x === '{' && depth === 0) return -1;
  }
  return -1;
}

export interface SourceFile {
  file: string;
  tokens: Token[];
}

export function readSources(root: string, dir: string, skip: (file: string) => boolean): SourceFile[] {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : []));
  return walk(dir)
    .map((p) => relative(root, p))
    .filter((f) => !skip(f))
    .map((file) => ({ file, tokens: tokenize(readFileSync(join(root, file), 'utf8')) }));
}

/** Functions, methods and classes (by name) that take an error code, with its parameter positions. */
export function codeTakers(sources: SourceFile[]): Map<string, number[]> {
  const takers = new Map<string, number[]>();
  for (const { tokens } of sources) {
    let className: string | undefined;
    tokens.forEach((t, k) => {
      if (t.text === 'class' && tokens[k + 1]?.kind === 'word') className = tokens[k + 1]!.text;
      if (t.text !== '(') return;
      const end = closing(tokens, k);
      const after = tokens[end + 1]?.text;
      if (after !== '{' && after !== ':' && after !== '=>') return; // a call, not a declaration
      const positions = codeParams(split(tokens, k + 1, end));
      if (positions.length === 0) return;
      // `function f(`, `function f<T>(`, `f(` (method), `constructor(`, `const f = (` / `= async (`
      let b = skipTypeArguments(tokens, k - 1);
      if (tokens[b]?.text === 'async') b--;
      if (tokens[b]?.text === '=') b--;
      let name = tokens[b]?.kind === 'word' ? tokens[b]!.text : undefined;
      if (name === 'constructor') name = className;
      if (name) takers.set(name, [...new Set([...(takers.get(name) ?? []), ...positions])]);
    });
  }
  return takers;
}

/** Every error code src/ passes, with where. */
export function codeUses(sources: SourceFile[], takers: Map<string, number[]>): CodeUse[] {
  const uses: CodeUse[] = [];
  for (const { file, tokens } of sources) {
    const add = (ts: Token[]) => ts.forEach((t) => uses.push({ code: t.value!, file, line: t.line }));
    tokens.forEach((t, k) => {
      // Calls: NAME( … ) or NAME<T>( … ) at a code position.
      const open = t.kind === 'word' && takers.has(t.text) && tokens[k - 1]?.text !== 'function' ? callOpen(tokens, k + 1) : -1;
      if (open > 0) {
        const end = closing(tokens, open);
        const args = split(tokens, open + 1, end);
        if (codeParams(args).length > 0) return; // the declaration itself
        for (const i of takers.get(t.text)!) if (args[i]) add(topLevelStrings(args[i]!));
      }
      // Declarations typed with ErrorCode: `NAME: TYPE = INIT` up to `;`, `,` or a closing bracket.
      if (t.text === ':' && tokens[k - 1]?.kind === 'word') {
        let j = k + 1;
        let depth = 0;
        while (j < tokens.length) {
          const x = tokens[j]!.text;
          if (x === '<' || OPEN[x]) depth++;
          else if (x === '>' || x === ')' || x === ']' || x === '}') {
            if (depth === 0) return;
            depth--;
          } else if (depth === 0 && (x === '=' || x === ';' || x === ',')) break;
          j++;
        }
        const type = tokens.slice(k + 1, j);
        if (tokens[j]?.text !== '=' || !type.some((x) => CODE_TYPE.test(x.text))) return;
        const init: Token[] = [];
        depth = 0;
        for (let m = j + 1; m < tokens.length; m++) {
          const x = tokens[m]!.text;
          if (OPEN[x]) depth++;
          else if (x === ')' || x === ']' || x === '}') {
            if (depth === 0) break;
            depth--;
          } else if (depth === 0 && (x === ';' || x === ',')) break;
          init.push(tokens[m]!);
        }
        const objectType = type.some((x) => x.text === '{');
        init.forEach((x, m) => {
          if (x.value === undefined || compared(init, m)) return;
          const isKey = init[m + 1]?.text === ':' && (init[m - 1]?.text === '{' || init[m - 1]?.text === ',');
          if (isKey) return;
          if (objectType && !(init[m - 1]?.text === ':' && init[m - 2]?.text === 'code')) return;
          uses.push({ code: x.value, file, line: x.line });
        });
      }
    });
  }
  return uses;
}
