// Who a received message is from and to, and which of our DIDs (and key) a reply goes out from.
// An ion DID has two forms (long, short) that name the same DID; a reply uses the form the peer
// addressed us by, so a peer that only knows the long form is never sent the short one and a
// peer that uses the short form gets the ~1 KB smaller messages it asked for.
import { didOf, sameDid } from '../didcomm/message.js';
import type { PlainMessage, UnpackMetadata } from '../didcomm/types.js';

/** The DID proven by the envelope (authcrypt sender or signer); undefined when anonymous. */
export function senderOf(metadata: UnpackMetadata): string | undefined {
  const kid = metadata.encryptedFromKid ?? metadata.signFrom;
  return kid ? didOf(kid) : undefined;
}

/**
 * Our DID as this message addressed it: the `to` entry naming one of our DIDs, else the DID of
 * the envelope recipient key of ours, else our first DID. A router with no DIDs of its own
 * answers as whoever the message was addressed to.
 */
export function addressedDid(myDids: readonly string[], message: PlainMessage, metadata: UnpackMetadata): string | undefined {
  const to = Array.isArray(message.to) ? message.to.filter((t): t is string => typeof t === 'string') : [];
  const kids = (metadata.encryptedToKids ?? []).filter((k) => typeof k === 'string');
  const mine = (candidate: string) => myDids.some((d) => sameDid(candidate, d));
  const addressed = to.find(mine) ?? kids.find(mine);
  if (addressed) return didOf(addressed);
  if (myDids.length) return myDids[0];
  const fallback = to[0] ?? kids[0];
  return fallback ? didOf(fallback) : undefined;
}

/**
 * The authcrypt sender key id for a reply from `from`: the key of ours the peer encrypted to,
 * written in the form of `from` (didcomm-node requires the sender kid's DID to be `from` itself).
 * Only when the peer authcrypted: its own key then shares a curve with ours. Otherwise undefined
 * and the envelope picks a key agreement key of `from`.
 */
export function replySenderKid(metadata: UnpackMetadata, from: string | undefined): string | undefined {
  if (!from || didOf(from) !== from || !metadata.encryptedFromKid) return undefined;
  const kid = (metadata.encryptedToKids ?? []).find((k) => typeof k === 'string' && k.includes('#') && sameDid(k, from));
  return kid ? `${from}${kid.slice(kid.indexOf('#'))}` : undefined;
}
