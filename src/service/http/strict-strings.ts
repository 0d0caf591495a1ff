// Numbers and booleans in a path or a query string, read as written. The TypeBox compiler
// converts strings before checking them, and its conversion is lenient: `limit=1.5` became 1,
// `true` 1, `0x10` 16, `1e2` 1, so a malformed page size or flag was taken for another value.
// Here a string bound for an integer must be a decimal integer, for a number a decimal number,
// for a boolean `true` or `false`; anything else is a validation error (400 invalid_request),
// before the compiler's conversion sees it.
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';

type Compile = typeof TypeBoxValidatorCompiler;
type Route = Parameters<Compile>[0];

const WRITTEN: Readonly<Record<string, { pattern: RegExp; message: string }>> = {
  integer: { pattern: /^-?(0|[1-9][0-9]*)$/, message: 'must be an integer in decimal digits' },
  number: { pattern: /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/, message: 'must be a number in decimal digits' },
  boolean: { pattern: /^(true|false)$/, message: 'must be true or false' },
};

/** The TypeBox compiler, with path and query strings checked as written first (bodies are JSON: not converted). */
export const strictStringsCompiler: Compile = (route: Route) => {
  const check = TypeBoxValidatorCompiler(route);
  if (route.httpPart === 'body') return check;
  const properties = (route.schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const typed = Object.entries(properties).flatMap(([name, s]) => (typeof s?.type === 'string' && WRITTEN[s.type] ? [[name, WRITTEN[s.type]!] as const] : []));
  if (typed.length === 0) return check;
  return (value: unknown) => {
    const fields = (value ?? {}) as Record<string, unknown>;
    const errors = typed
      .filter(([name, w]) => typeof fields[name] === 'string' && !w.pattern.test(fields[name] as string))
      .map(([name, w]) => ({ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: {}, message: w.message }));
    return errors.length ? { error: errors } : check(value);
  };
};
