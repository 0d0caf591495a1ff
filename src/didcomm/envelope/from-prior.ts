// The from_prior JWT of DIDComm v2 §DID Rotation: `iss` the prior DID, `sub` the new one,
// signed by a key in the authentication section of the prior DID's document, header
// {typ: JWT, alg, kid}. Signed and verified natively (jws/).
import { sameDid } from './adapters.js';
import { algOfCurve, CURVE_OF_ALG, isSignAlg, verifyBytes } from './jws/algorithms.js';
import { parseCompact } from './jws/parse.js';
import { signCompact, signingInput } from './jws/sign.js';
import { didAndFragment, isDid, methodCurve, methodKey, methodOf, type NativeCall } from './native-call.js';
import { invalidArgument, malformed, notResolved, parseJsonObject, secretNotFound, unsupported } from './refusal.js';

export interface FromPriorClaims {
  iss: string;
  sub: string;
  aud?: string;
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
}

const CLAIM_ORDER = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti'] as const;

/** §DID Rotation: iss and sub are distinct DIDs without fragments; the issuer key is a key of iss. */
export function checkFromPriorClaims(c: FromPriorClaims, issuerKid?: string): void {
  const plainDid = (v: unknown) => typeof v === 'string' && isDid(v) && !didAndFragment(v).hasFragment;
  if (!plainDid(c?.iss)) throw malformed('from_prior.iss', 'from_prior iss must be a DID without a fragment');
  if (!plainDid(c.sub)) throw malformed('from_prior.sub', 'from_prior sub must be a DID without a fragment');
  if (c.iss === c.sub) throw malformed('from_prior.sub', 'from_prior iss and sub must differ');
  if (issuerKid !== undefined) {
    const { did, hasFragment } = didAndFragment(issuerKid);
    if (!hasFragment) throw invalidArgument('packFromPrior: the issuer kid must be a DID URL');
    if (did !== c.iss) throw invalidArgument('packFromPrior: the issuer kid is not a key of iss');
  }
}

export async function signFromPrior(claims: FromPriorClaims, issuerKid: string | undefined, call: NativeCall): Promise<{ jwt: string; issuerKid: string }> {
  checkFromPriorClaims(claims, issuerKid);
  const doc = await call.requireDoc(claims.iss, 'from_prior issuer');
  let candidates = doc.authentication;
  if (issuerKid !== undefined) {
    if (!doc.authentication.includes(issuerKid)) throw notResolved(`from_prior issuer key ${issuerKid} is not in the authentication section of ${claims.iss}`);
    candidates = [issuerKid];
  }
  const [kid] = await call.heldKids(candidates);
  if (!kid) throw secretNotFound(`no secret held for an authentication key of ${claims.iss}`);
  const key = await call.privateKey(kid);
  const alg = algOfCurve(key.curve);
  if (!alg) throw unsupported('envelope.jws-alg', `${kid} is a ${key.curve} key; from_prior signs with EdDSA, ES256 or ES256K`);
  const payload: Record<string, unknown> = {};
  for (const k of CLAIM_ORDER) if (claims[k] !== undefined) payload[k] = claims[k];
  return { jwt: signCompact(JSON.stringify(payload), { kid, alg, key: key.key }, 'JWT'), issuerKid: kid };
}

/** The verified claims of a from_prior JWT and the key that signed it. */
export async function verifyFromPrior(jwt: string, call: NativeCall): Promise<{ claims: FromPriorClaims; issuerKid: string }> {
  const { headerB64, payloadB64, header, payload, signature } = parseCompact(jwt, 'from_prior');
  if (header.typ !== 'JWT') throw malformed('from_prior.typ', 'the from_prior header typ must be JWT');
  if (!isSignAlg(header.alg)) throw unsupported('from_prior.alg', `from_prior alg ${String(header.alg)} is not EdDSA, ES256 or ES256K`);
  const kid = header.kid;
  if (typeof kid !== 'string' || !didAndFragment(kid).hasFragment) throw malformed('from_prior.kid', 'the from_prior kid must be a DID URL');
  const doc = await call.requireDoc(didAndFragment(kid).did, 'from_prior issuer');
  const vm = doc.authentication.includes(kid) ? methodOf(doc, kid) : undefined;
  if (!vm) throw notResolved(`from_prior key ${kid} is not in the authentication section of its DID`);
  const curve = methodCurve(vm);
  if (curve !== CURVE_OF_ALG[header.alg]) throw malformed('from_prior.alg-key', `from_prior alg ${header.alg} does not fit the ${String(curve)} key ${kid}`);
  if (!verifyBytes(header.alg, methodKey(vm, 'from_prior.kid'), signingInput(headerB64, payloadB64), signature)) {
    throw malformed('from_prior.signature', 'the from_prior signature does not verify');
  }
  const claims = parseJsonObject(payload.toString('utf8'), 'the from_prior payload', 'from_prior.jwt') as unknown as FromPriorClaims;
  if (typeof claims.iss !== 'string' || typeof claims.sub !== 'string') throw malformed('from_prior.jwt', 'from_prior needs iss and sub');
  // §DID Rotation: "The indicated key MUST be authorized in the DID Document of the prior DID (iss)."
  if (!sameDid(didAndFragment(kid).did, claims.iss)) throw malformed('from_prior.kid', `the from_prior key ${kid} is not a key of iss ${claims.iss}`);
  const out: FromPriorClaims = { iss: claims.iss, sub: claims.sub };
  for (const k of ['aud', 'exp', 'nbf', 'iat', 'jti'] as const) if (claims[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = claims[k];
  return { claims: out, issuerKid: kid };
}
