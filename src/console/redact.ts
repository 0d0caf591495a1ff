// What the console never shows: private key material and secrets, wherever they sit in a value
// it displays (a message body, a stored record). A JWK's private members (RFC 7518 §6.2.2 `d`,
// §6.3.2 `p q dp dq qi oth`, §6.4 `k`) and members named as private keys or secrets are replaced.
const WITHHELD = '(withheld)';
const JWK_PRIVATE = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);
const SECRET_NAMES = /^(private[-_]?key.*|secret|client[-_]?secret|secret[-_]?key|password|seed|mnemonic)$/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const obj = value as Record<string, unknown>;
  const isJwk = typeof obj.kty === 'string';
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    out[k] = (isJwk && JWK_PRIVATE.has(k)) || SECRET_NAMES.test(k) ? WITHHELD : redact(v, depth + 1);
  }
  return out;
}

const PRIVATE_MEMBER = /"(d|p|q|dp|dq|qi|oth|k|private[-_]?key[^"]*|secret|client[-_]?secret|secret[-_]?key|password|seed|mnemonic)"(\s*:\s*)"(?:[^"\\]|\\.)*(?:"|$)/gi;

/**
 * `redact` for a value kept as text: a packed message as it travelled, or the first bytes of one
 * only a digest was kept of (a prefix that may not parse). Text that parses is redacted as its
 * value and given back unchanged when it holds nothing to withhold (so `message check` reads the
 * very bytes); text that does not parse has every string member named as a private member or a
 * secret replaced, JWK or not (a prefix cannot say which object a member is in).
 */
export function redactText(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text.replace(PRIVATE_MEMBER, (_m, name: string, colon: string) => `"${name}"${colon}"${WITHHELD}"`);
  }
  const kept = redact(value);
  return JSON.stringify(kept) === JSON.stringify(value) ? text : JSON.stringify(kept);
}
