// Choosing keys and encrypting (native engine), as DIDComm v2 §Key IDs describes and as
// didcomm-node chooses today, so that both engines address the same keys: the recipients are
// every keyAgreement key of the recipient DID (or the one key named) on one curve, the first
// usable curve in document order; authcrypt takes the sender's first held keyAgreement key that
// has a recipient key on its curve. Curves: X25519, P-256, P-384, P-521 (§Curves).
import type { LibDidDoc, LibVerificationMethod } from './adapters.js';
import { encryptJwe } from './jwe/encrypt.js';
import type { ContentEnc } from './jwe/content.js';
import { isAgreementCurve, type AgreementCurve } from './key-objects.js';
import { didAndFragment, methodCurve, methodKey, methodOf, type NativeCall } from './native-call.js';
import { malformed, notResolved, secretNotFound, unsupported } from './refusal.js';

interface AgreementKey {
  vm: LibVerificationMethod;
  curve: AgreementCurve | undefined;
}

/** The keyAgreement keys of `doc`, or the one named by `didUrl`'s fragment. */
function agreementKeys(doc: LibDidDoc, didUrl: string, who: string): AgreementKey[] {
  const named = didAndFragment(didUrl).hasFragment ? didUrl : undefined;
  const kids = doc.keyAgreement.filter((k) => named === undefined || k === named);
  if (kids.length === 0) throw notResolved(named ? `${named} is not a keyAgreement key of ${doc.id}` : `${who} ${doc.id} has no keyAgreement keys`);
  return kids.map((kid) => {
    const vm = methodOf(doc, kid);
    if (!vm) throw malformed('envelope.jwe-recipient-kid', `no verification material for ${who} key ${kid}`);
    const curve = methodCurve(vm);
    return { vm, curve: isAgreementCurve(curve) ? curve : undefined };
  });
}

const publicKeys = (keys: AgreementKey[]) => keys.map((k) => ({ kid: k.vm.id, key: methodKey(k.vm, 'envelope.jwe-recipient-kid') }));

/** ECDH-ES+A256KW to `to` (a DID or one of its key ids). */
export async function anoncrypt(plaintext: Buffer, to: string, enc: ContentEnc, call: NativeCall): Promise<{ packed: string; toKids: string[] }> {
  const doc = await call.requireDoc(didAndFragment(to).did, 'recipient');
  const keys = agreementKeys(doc, to, 'recipient');
  const curve = keys.find((k) => k.curve)?.curve;
  if (!curve) throw unsupported('envelope.jwe-epk-crv', `no key agreement key of ${doc.id} is on X25519, P-256, P-384 or P-521`);
  const chosen = keys.filter((k) => k.curve === curve);
  const recipients = publicKeys(chosen);
  return { packed: encryptJwe(plaintext, { alg: 'ECDH-ES+A256KW', enc, curve, recipients }), toKids: recipients.map((r) => r.kid) };
}

/**
 * ECDH-1PU+A256KW / A256CBC-HS512 from `from` to `to`; with `protect`, anoncrypted again to the
 * same recipient keys (DIDComm v2 §Protecting the Sender Identity), as didcomm-node does it.
 */
export async function authcrypt(
  plaintext: Buffer,
  o: { to: string; from: string; protect: boolean; encAnon: ContentEnc },
  call: NativeCall,
): Promise<{ packed: string; fromKid: string; toKids: string[] }> {
  const [toDoc, fromDoc] = await Promise.all([
    call.requireDoc(didAndFragment(o.to).did, 'recipient'),
    call.requireDoc(didAndFragment(o.from).did, 'sender'),
  ]);
  const senderKeys = agreementKeys(fromDoc, o.from, 'sender');
  const held = new Set(await call.heldKids(senderKeys.map((k) => k.vm.id)));
  if (held.size === 0) throw secretNotFound(`no secret held for a keyAgreement key of ${fromDoc.id}`);
  const recipientKeys = agreementKeys(toDoc, o.to, 'recipient');
  const sender = senderKeys.find((s) => held.has(s.vm.id) && s.curve && recipientKeys.some((r) => r.curve === s.curve));
  if (!sender) throw unsupported('envelope.jwe-epk-curve', `no keyAgreement key of ${fromDoc.id} shares a curve with one of ${toDoc.id}`);
  const curve = sender.curve!;
  const secret = call.heldKey(sender.vm.id);
  if (secret.curve !== curve) throw malformed('envelope.secret', `the secret of ${sender.vm.id} is on ${secret.curve}, its document says ${curve}`);
  const recipients = publicKeys(recipientKeys.filter((r) => r.curve === curve));
  let packed = encryptJwe(plaintext, { alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512', curve, recipients, sender: { kid: sender.vm.id, key: secret.key } });
  if (o.protect) packed = encryptJwe(Buffer.from(packed, 'utf8'), { alg: 'ECDH-ES+A256KW', enc: o.encAnon, curve, recipients });
  return { packed, fromKid: sender.vm.id, toKids: recipients.map((r) => r.kid) };
}
