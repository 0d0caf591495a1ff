// RFC 7515 §4.1.11 "crit" (RFC 7516 §4.1.13 applies it to a JWE), as it binds the producer:
// "Producers MUST NOT include Header Parameter names defined by this specification or [JWA] for
// use with JWS, duplicate names, or names that do not occur as Header Parameter names within the
// JOSE Header in the "crit" list. Producers MUST NOT use the empty list "[]" as the "crit" value."
// A well-formed list naming extensions idsync does not implement breaks nothing of the sender's:
// the MUST to refuse it binds the recipient.

/** Header Parameter names RFC 7515 §4.1 registers for a JWS (RFC 7518 adds none for JWS). */
export const JWS_HEADER_NAMES = ['alg', 'jku', 'jwk', 'kid', 'x5u', 'x5c', 'x5t', 'x5t#S256', 'typ', 'cty', 'crit'];
/** For a JWE: RFC 7516 §4.1 and RFC 7518 §4.6.1, §4.7.1, §4.8.1. */
export const JWE_HEADER_NAMES = [...JWS_HEADER_NAMES, 'enc', 'zip', 'epk', 'apu', 'apv', 'iv', 'tag', 'p2s', 'p2c'];

/** What is wrong with a crit value the producer wrote (`joseHeader`: the union of its headers), or undefined. */
export function critListFault(crit: unknown, joseHeader: Record<string, unknown>, registered: readonly string[]): string | undefined {
  if (!Array.isArray(crit) || !crit.every((n) => typeof n === 'string' && n !== '')) return 'crit is not an array of Header Parameter names';
  if (crit.length === 0) return 'crit is the empty list []';
  const dup = crit.filter((n, i) => crit.indexOf(n) !== i);
  if (dup.length) return `crit names ${dup.join(', ')} twice`;
  const own = crit.filter((n) => registered.includes(n as string));
  if (own.length) return `crit lists ${own.join(', ')}, defined by the JOSE specifications themselves`;
  const absent = crit.filter((n) => !((n as string) in joseHeader));
  if (absent.length) return `crit lists ${absent.join(', ')}, not present in the header`;
  return undefined;
}
