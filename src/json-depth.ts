// A bound on how deeply JSON from outside may nest. JSON.parse itself copes with any depth, but
// what runs on the value afterwards (JSON.stringify, canonicalisation, structuredClone, deep
// freezing, conformance walks) recurses and overflows the stack on a few thousand levels: a
// small body could turn into a 500. RFC 8259 §9 lets a parser limit nesting depth; every JSON
// body we take in (REST, DIDComm over HTTP and WebSocket, documents we fetch) is checked here,
// on the text, before it is parsed.
import { IdsyncError } from './errors.js';

/** Deeper than any message, document or request body of ours (they nest about 12 levels at most). */
export const MAX_JSON_DEPTH = 64;

/** The error code of JSON nested deeper than allowed (HTTP 400). */
export const JSON_TOO_DEEP = 'json_too_deep';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * The deepest nesting of objects and arrays in `text`, counting only brackets outside strings; it
 * stops counting once past `stopAfter`. A linear scan without recursion; `text` need not be
 * valid JSON (the parser judges that).
 */
export function jsonDepth(text: string, stopAfter = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > deepest && (deepest = depth) > stopAfter) return deepest;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return deepest;
}

/** Whether `text` holds more than `n` opening brackets, inside strings or not (counted by indexOf, natively). */
function moreBracketsThan(text: string, n: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > n) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > n) return true;
  return false;
}

/**
 * Whether `text` nests deeper than `maxDepth`. Each level opens a bracket, so text with no more
 * brackets than that cannot: most of what we take in (an envelope is a few brackets around KBs
 * of base64url) is answered by counting them, without the character-by-character scan.
 */
export function nestsDeeperThan(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  return moreBracketsThan(text, maxDepth) && jsonDepth(text, maxDepth) > maxDepth;
}

/** Throws IdsyncError `json_too_deep` (details.maxDepth) when `text` nests deeper than `maxDepth`. */
export function assertJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): void {
  if (nestsDeeperThan(text, maxDepth)) {
    throw new IdsyncError(JSON_TOO_DEEP, `JSON may nest at most ${maxDepth} levels deep`, { details: { maxDepth, status: 400 } });
  }
}

/** JSON.parse after the depth check: the one way to parse JSON that came from outside. */
export function parseJsonBounded(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  assertJsonDepth(text, maxDepth);
  return JSON.parse(text);
}
