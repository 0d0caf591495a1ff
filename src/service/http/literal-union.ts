// A TypeBox union of string literals built from a list. `Type.Union(list.map(Type.Literal))`
// makes the same JSON Schema, but its TypeScript type is a union over an array, not a tuple,
// whose Static is `never`: every field declared that way (a workflow's status, a data profile
// field's key) was `never` to the code and the users that read or write it.
import { Type, type TSchemaOptions, type TLiteral, type TUnion } from '@fastify/type-provider-typebox';

export type LiteralUnion<T extends readonly string[]> = TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>;

export function literalUnion<const T extends readonly string[]>(values: T, options?: TSchemaOptions): LiteralUnion<T> {
  return Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as LiteralUnion<T>;
}
