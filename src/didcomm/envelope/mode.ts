// How a message was protected, from unpack metadata (both engines; see the table in index.ts).
import type { EnvelopeMode } from '../types.js';

export function envelopeMode(m: { encrypted: boolean; nonRepudiation: boolean; anonymousSender: boolean; encryptedFromKid?: string }): EnvelopeMode {
  if (!m.encrypted) return m.nonRepudiation ? 'signed' : 'plaintext';
  if (m.encryptedFromKid) {
    if (m.nonRepudiation) return 'authcrypt-signed';
    return m.anonymousSender ? 'anoncrypt-authcrypt' : 'authcrypt';
  }
  return m.nonRepudiation ? 'anoncrypt-signed' : 'anoncrypt';
}
