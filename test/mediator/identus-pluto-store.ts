// A Pluto.Store in memory for the Identus SDK in Node (its demos use @pluto-encrypted/inmemory,
// which is not a dependency here): tables of models by uuid, and the query selectors its
// repositories use (field equality, $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists, $regex,
// $or, $and, $nor), with sort, skip and limit.
type Model = { uuid: string; [k: string]: unknown };
type Selector = Record<string, unknown>;

function valueAt(doc: Model, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);
}

function matchesOps(value: unknown, ops: Record<string, unknown>): boolean {
  for (const [op, arg] of Object.entries(ops)) {
    const a = arg as never;
    switch (op) {
      case '$eq': if (value !== arg) return false; break;
      case '$ne': if (value === arg) return false; break;
      case '$in': if (!(arg as unknown[]).includes(value)) return false; break;
      case '$nin': if ((arg as unknown[]).includes(value)) return false; break;
      case '$gt': if (!((value as never) > a)) return false; break;
      case '$gte': if (!((value as never) >= a)) return false; break;
      case '$lt': if (!((value as never) < a)) return false; break;
      case '$lte': if (!((value as never) <= a)) return false; break;
      case '$exists': if ((value !== undefined) !== arg) return false; break;
      case '$regex': if (typeof value !== 'string' || !new RegExp(arg as string, (ops.$options as string) ?? '').test(value)) return false; break;
      case '$options': break;
      default: throw new Error(`query operator ${op} is not supported by this test store`);
    }
  }
  return true;
}

function matches(doc: Model, selector: Selector = {}): boolean {
  for (const [key, cond] of Object.entries(selector)) {
    if (key === '$or') { if (!(cond as Selector[]).some((s) => matches(doc, s))) return false; continue; }
    if (key === '$and') { if (!(cond as Selector[]).every((s) => matches(doc, s))) return false; continue; }
    if (key === '$nor') { if ((cond as Selector[]).some((s) => matches(doc, s))) return false; continue; }
    const value = valueAt(doc, key);
    const isOps = cond !== null && typeof cond === 'object' && !Array.isArray(cond) && Object.keys(cond).every((k) => k.startsWith('$'));
    if (isOps ? !matchesOps(value, cond as Record<string, unknown>) : value !== cond) return false;
  }
  return true;
}

export function memoryPlutoStore() {
  const tables = new Map<string, Map<string, Model>>();
  const table = (name: string) => tables.get(name) ?? tables.set(name, new Map()).get(name)!;
  return {
    async query(name: string, q: { selector?: Selector; sort?: Array<Record<string, 'asc' | 'desc'>>; skip?: number; limit?: number } = {}) {
      let rows = [...table(name).values()].filter((m) => matches(m, q.selector)).map((m) => structuredClone(m));
      for (const part of [...(q.sort ?? [])].reverse()) {
        const [[field, dir]] = Object.entries(part) as Array<[string, 'asc' | 'desc']>;
        rows.sort((a, b) => ((valueAt(a, field) as never) < (valueAt(b, field) as never) ? -1 : (valueAt(a, field) as never) > (valueAt(b, field) as never) ? 1 : 0) * (dir === 'desc' ? -1 : 1));
      }
      if (q.skip) rows = rows.slice(q.skip);
      if (q.limit !== undefined) rows = rows.slice(0, q.limit);
      return rows as never[];
    },
    async insert(name: string, model: Model) {
      table(name).set(model.uuid, structuredClone(model));
    },
    async update(name: string, model: Model) {
      if (!table(name).has(model.uuid)) throw new Error(`no ${model.uuid} in ${name}`);
      table(name).set(model.uuid, structuredClone(model));
    },
    async delete(name: string, uuid: string) {
      table(name).delete(uuid);
    },
  };
}
