// An in-memory Pluto.Store for the Identus SDK (the SDK ships the interface; its own stores live in
// other packages). Pluto's repositories query with plain equality and the $or/$and/$nor, $eq, $ne,
// $in, $nin and $exists operators of its Query type (identus-sdk build/pluto/types.d.ts); that is
// what this matches, and anything else is refused so a query it cannot answer never returns wrong rows.
import type { Pluto } from '@hyperledger/identus-sdk';

type Row = Record<string, unknown> & { uuid: string };
type Selector = Record<string, unknown>;

const OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$exists']);

function matchesValue(value: unknown, condition: unknown): boolean {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return value === condition;
  const ops = condition as Record<string, unknown>;
  return Object.entries(ops).every(([op, arg]) => {
    switch (op) {
      case '$eq': return value === arg;
      case '$ne': return value !== arg;
      case '$in': return (arg as unknown[]).includes(value);
      case '$nin': return !(arg as unknown[]).includes(value);
      case '$exists': return (value !== undefined) === arg;
      default: throw new Error(`in-memory Pluto store: operator ${op} is not supported`);
    }
  });
}

function matches(row: Row, selector: Selector | undefined): boolean {
  if (!selector) return true;
  return Object.entries(selector).every(([key, condition]) => {
    if (key === '$or') return (condition as Selector[]).some((s) => matches(row, s));
    if (key === '$and') return (condition as Selector[]).every((s) => matches(row, s));
    if (key === '$nor') return !(condition as Selector[]).some((s) => matches(row, s));
    if (key.startsWith('$') && !OPERATORS.has(key)) throw new Error(`in-memory Pluto store: ${key} is not supported`);
    return matchesValue(row[key], condition);
  });
}

export function memoryPlutoStore(): Pluto.Store {
  const tables = new Map<string, Map<string, Row>>();
  const table = (name: string) => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = new Map()));
    return t;
  };
  return {
    async query(name, query) {
      // An empty $or (no DIDs yet, say) matches nothing, as in the SDK's own stores.
      let rows = [...table(name).values()].filter((r) => matches(r, query?.selector as Selector | undefined));
      for (const part of [...(query?.sort ?? [])].reverse()) {
        const [[key, dir]] = Object.entries(part);
        rows = rows.sort((a, b) => (String(a[key]) < String(b[key]) ? -1 : String(a[key]) > String(b[key]) ? 1 : 0) * (dir === 'desc' ? -1 : 1));
      }
      const skip = query?.skip ?? 0;
      rows = rows.slice(skip, query?.limit === undefined ? undefined : skip + query.limit);
      return rows.map((r) => ({ ...r })) as never[];
    },
    async insert(name, model) {
      table(name).set(model.uuid, { ...(model as unknown as Row) });
    },
    async update(name, model) {
      if (!table(name).has(model.uuid)) throw new Error(`in-memory Pluto store: no ${name} row ${model.uuid}`);
      table(name).set(model.uuid, { ...(model as unknown as Row) });
    },
    async delete(name, uuid) {
      if (!table(name).delete(uuid)) throw new Error(`in-memory Pluto store: no ${name} row ${uuid}`);
    },
  };
}
