// RDFC-1.0 canonical N-Quads of documents that differ only in their string values, from one
// JSON-LD expansion per shape. jsonld spends most of a canonicalization processing contexts (the
// whole active context is cloned and the type-scoped contexts processed again for every
// document), and every credential the service issues has the same shape: the same members,
// contexts and types, other ids, dates and claims.
//
// A shape is the document with each string value that is not a type or a context replaced by a
// placeholder of the same kind (`urn:idsyncslot3z` for `urn:uuid:…`, `idsyncslot4z` for
// `Ada`). jsonld turns the placeholder document into an RDF dataset once, with the bundled
// contexts and safe mode; a document of that shape then gets that dataset with its own values
// put back where the placeholders came out, and rdf-canonize (the very function jsonld.canonize
// ends with) canonicalizes it. That is jsonld's output for the document itself when:
//  - every placeholder came out whole, as a literal's value (JSON-LD 1.1 §8.6: a string of a
//    term not coerced to an IRI is the literal's lexical form, unchanged) or as a whole IRI
//    (an absolute IRI is not expanded further: JSON-LD 1.1 API §6.3 IRI Expansion), and
//    nowhere else — a placeholder changed on its way (a prefix or @vocab expanded it, a datatype
//    rewrote it, it became a language tag or JSON text) makes the shape one this path refuses;
//  - an IRI's value expands exactly as its placeholder did: same prefix before the first colon
//    (so the same compact-IRI decision), absolute by jsonld's own test, and not a term of any
//    bundled context (a term would be replaced by its mapping);
//  - no two quads became one (jsonld's node map keeps one of equal values; the dataset here
//    would keep both).
// Anything else — another loader, a shape jsonld refuses, a value that fails a check — is left
// to jsonld (the caller falls back), so this path never answers differently, only sooner.
import { createRequire } from 'node:module';
import jsonld from 'jsonld';
import { setBounded } from '../bounded.js';
import { BUNDLED_CONTEXTS, documentLoader } from './contexts.js';

interface Term {
  termType: string;
  value: string;
  datatype?: { termType: string; value: string };
  language?: string;
}
interface Quad {
  subject: Term;
  predicate: Term;
  object: Term;
  graph: Term;
}
type Position = 'subject' | 'predicate' | 'object' | 'graph';
const POSITIONS: readonly Position[] = ['subject', 'predicate', 'object', 'graph'];

interface RdfCanonize {
  canonize(dataset: Quad[], options: { algorithm: 'RDFC-1.0' }): Promise<string>;
}
// jsonld's own canonicalizer (jsonld.canonize calls it on the dataset toRDF gives); CommonJS, untyped.
const rdfCanonize = createRequire(import.meta.url)('rdf-canonize') as RdfCanonize;

const MARK = 'idsyncslot';
const SLOT = /idsyncslot(\d+)z/;
/** jsonld's absolute-IRI test (jsonld/lib/url.js isAbsolute): what it keeps as an IRI in toRDF. */
const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+-.]*|_):[^\s]*$/;

interface Shape {
  key: string;
  skeleton: unknown;
  values: string[];
  placeholders: string[];
}

interface Template {
  quads: Quad[];
  /** Where each slot's value goes: quad index and position. */
  refs: { quad: number; position: Position; slot: number }[];
  kinds: ('iri' | 'literal')[];
}

class NotAShape extends Error {}

/** The placeholder for the `index`th string: same prefix before the first colon, and `//` after it when the value has it. */
function placeholder(value: string, index: number): string {
  const colon = value.indexOf(':');
  if (colon <= 0) return `${MARK}${index}z`;
  return `${value.slice(0, colon)}:${value.startsWith('//', colon + 1) ? '//' : ''}${MARK}${index}z`;
}

const namedContexts = (ctx: unknown): boolean => typeof ctx === 'string' || (Array.isArray(ctx) && ctx.every((c) => typeof c === 'string'));

/** The document's shape, or undefined when it is not plain JSON of strings, numbers, booleans and null, or has an inline context. */
export function shapeOf(doc: unknown): Shape | undefined {
  const values: string[] = [];
  const placeholders: string[] = [];
  const walk = (value: unknown, fixed: boolean): unknown => {
    if (typeof value === 'string') {
      if (value.includes(MARK)) throw new NotAShape();
      if (fixed) return value;
      // Keyword-like strings ('@id') are not values jsonld keeps as they are.
      if (value.startsWith('@')) throw new NotAShape();
      const p = placeholder(value, values.length);
      values.push(value);
      placeholders.push(p);
      return p;
    }
    if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
    if (Array.isArray(value)) return value.map((v) => walk(v, fixed));
    if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value).sort()) {
        if (k.includes(MARK)) throw new NotAShape();
        // Only contexts named by URL (the bundled ones): an inline context can define terms
        // this path does not know of, which jsonld would expand a value into (a term spelled
        // like an absolute IRI, under @type: @vocab), so such documents are left to jsonld.
        if (k === '@context' && !namedContexts((value as Record<string, unknown>)[k])) throw new NotAShape();
        // Contexts and types choose the term definitions: part of the shape, never placeholders.
        out[k] = walk((value as Record<string, unknown>)[k], fixed || k === '@context' || k === 'type' || k === '@type');
      }
      return out;
    }
    throw new NotAShape();
  };
  try {
    const skeleton = walk(doc, false);
    return { key: JSON.stringify(skeleton), skeleton, values, placeholders };
  } catch (err) {
    if (err instanceof NotAShape) return undefined;
    throw err;
  }
}

/** Every name a bundled context defines, at any depth: an IRI value equal to one could be expanded as a term. */
const TERMS: ReadonlySet<string> = (() => {
  const names = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (!k.startsWith('@')) names.add(k);
        walk(x);
      }
    }
  };
  for (const ctx of BUNDLED_CONTEXTS.values()) walk(ctx);
  return names;
})();

async function templateOf(shape: Shape): Promise<Template | null> {
  let quads: Quad[];
  try {
    // The options jsonld.canonize gives toRDF (canonize() in data-integrity.ts).
    quads = (await (jsonld.toRDF as unknown as (input: unknown, options: Record<string, unknown>) => Promise<Quad[]>)(shape.skeleton, {
      documentLoader,
      safe: true,
      base: null,
      produceGeneralizedRdf: false,
    })) as Quad[];
  } catch {
    return null;
  }
  const kinds: ('iri' | 'literal')[] = [];
  const refs: Template['refs'] = [];
  for (let q = 0; q < quads.length; q++) {
    const quad = quads[q]!;
    for (const position of POSITIONS) {
      const term = quad[position];
      if (term.datatype?.value.includes(MARK) || term.language?.includes(MARK)) return null;
      if (!term.value.includes(MARK)) continue;
      const slot = Number(SLOT.exec(term.value)?.[1]);
      if (!(slot < shape.placeholders.length) || term.value !== shape.placeholders[slot]) return null;
      const kind = term.termType === 'NamedNode' ? 'iri' : term.termType === 'Literal' && position === 'object' ? 'literal' : undefined;
      if (!kind || (kinds[slot] !== undefined && kinds[slot] !== kind)) return null;
      kinds[slot] = kind;
      refs.push({ quad: q, position, slot });
    }
  }
  for (let i = 0; i < shape.values.length; i++) if (kinds[i] === undefined) return null; // a value jsonld dropped or changed
  return { quads, refs, kinds };
}

/** Templates by shape key, as promises: documents of a new shape that arrive together share its one build. */
const TEMPLATES = new Map<string, Promise<Template | null>>();
const TEMPLATES_MAX = 64;

const termKey = (t: Term): string => `${t.termType}\u0000${t.value}\u0000${t.datatype?.value ?? ''}\u0000${t.language ?? ''}`;

/** The template's dataset with `values` in place, or undefined when a value would not come out of jsonld as its placeholder did. */
function instantiate(template: Template, values: string[]): Quad[] | undefined {
  for (let i = 0; i < values.length; i++) {
    if (template.kinds[i] !== 'iri') continue;
    const v = values[i]!;
    if (!ABSOLUTE.test(v) || v.startsWith('_:') || TERMS.has(v)) return undefined;
  }
  const quads = template.quads.slice();
  for (const { quad, position, slot } of template.refs) {
    const copy = quads[quad] === template.quads[quad] ? { ...quads[quad]! } : quads[quad]!;
    copy[position] = { ...copy[position], value: values[slot]! };
    quads[quad] = copy;
  }
  // Equal quads give equal keys (different ones may too, rarely: then jsonld is asked, to no harm).
  const seen = new Set<string>();
  for (const q of quads) seen.add(`${termKey(q.subject)}\u0000${q.predicate.value}\u0000${termKey(q.object)}\u0000${termKey(q.graph)}`);
  return seen.size === quads.length ? quads : undefined;
}

/**
 * The RDFC-1.0 canonical N-Quads of `doc` with the bundled contexts (the default loader), from
 * its shape's template; undefined when this path cannot vouch for the answer — then jsonld must
 * canonicalize the document itself.
 */
export async function canonizeByShape(doc: Record<string, unknown>): Promise<string | undefined> {
  const shape = shapeOf(doc);
  if (!shape) return undefined;
  let building = TEMPLATES.get(shape.key);
  if (building === undefined) {
    // Kept before it is built: a fleet's first credentials come at once, and each would run its own jsonld expansion.
    building = templateOf(shape).catch(() => null);
    setBounded(TEMPLATES, shape.key, building, TEMPLATES_MAX);
  }
  const template = await building;
  if (!template) return undefined;
  const quads = instantiate(template, shape.values);
  if (!quads) return undefined;
  return rdfCanonize.canonize(quads, { algorithm: 'RDFC-1.0' });
}
