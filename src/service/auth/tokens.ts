// Access tokens (OAuth 2.0 client credentials, RFC 6749 §4.4): EdDSA-signed JWTs (RFC 7519,
// RFC 8037) with a key kept in the store, so that tokens survive a restart. Verification pins
// the algorithm, the issuer, the audience and the token type (RFC 9068 §4: `at+jwt`, so no other
// JWT signed with the same key passes as an access token), and uses the injected clock.
import { SignJWT, calculateJwkThumbprint, importJWK, jwtVerify, errors as joseErrors, type CryptoKey } from 'jose';
import type { Clock, IdGenerator } from '../../clock.js';
import type { HttpErrorCode } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { generateKeyPair, privateJwk, publicJwk, keyPairFromJwk, type PrivateJwk } from '../../keys.js';
import { type AuthContext } from './route-auth.js';
import { bearerChallenge } from '../http/bearer-challenge.js';
import { problem } from '../http/problem.js';
import { setBounded } from '../../bounded.js';

/** Token lifetime in seconds (the spec's sample response: expiresIn 86400). */
export const TOKEN_LIFETIME_S = 86400;

/** Namespaced private claims (RFC 7519 §4.3; vendor-facts: tenant and correlation ids in namespaced claims). */
export const CLAIMS = {
  tenantId: 'https://idsync.dev/claims/tenant_id',
  correlationId: 'https://idsync.dev/claims/correlation_id',
  dataProfileId: 'https://idsync.dev/claims/data_profile_id',
} as const;

export interface TokenService {
  readonly issuer: string;
  readonly audience: string;
  issue(input: { clientId: string; tenantId: string; scopes: string[]; dataProfileId?: string }): Promise<{ accessToken: string; expiresIn: number; tokenId: string }>;
  /** Verifies signature, alg, iss, aud, exp; returns the claims we use. Throws 401 problems. */
  verify(token: string): Promise<AuthContext>;
}

interface StoredSigningKey {
  kid: string;
  jwk: PrivateJwk;
}

const ALG = 'EdDSA';
/** Verified tokens remembered (one per active client, in practice). */
const VERIFIED_TOKENS_MAX = 1024;
/** RFC 9068 §2.1: the JOSE header `typ` of an access token; §4: resource servers reject any other. */
export const ACCESS_TOKEN_TYP = 'at+jwt';

function invalidToken(detail: string, code: HttpErrorCode = 'invalid_token') {
  return problem(code, detail, undefined, { 'WWW-Authenticate': bearerChallenge('invalid_token', detail) });
}

export async function createTokenService(deps: {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  issuer: string;
  audience: string;
}): Promise<TokenService> {
  const col = deps.store.collection<StoredSigningKey>('svc-identity');
  let stored = await col.get('jwt-signing-key');
  if (!stored) {
    const kp = generateKeyPair('Ed25519');
    const kid = await calculateJwkThumbprint(publicJwk(kp));
    stored = { kid, jwk: privateJwk(kp) };
    await col.put('jwt-signing-key', stored);
  }
  const kp = keyPairFromJwk(stored.jwk);
  const privateKey = (await importJWK({ ...privateJwk(kp) }, ALG)) as CryptoKey;
  const publicKey = (await importJWK({ ...publicJwk(kp) }, ALG)) as CryptoKey;
  const { kid } = stored;
  const { issuer, audience } = deps;
  // Tokens verified before, by their exact text (a client sends the same token on every call
  // until it expires): the EdDSA check through WebCrypto cost more than most requests' work.
  const verified = new Map<string, { auth: AuthContext; exp: number }>();

  return {
    issuer,
    audience,
    async issue({ clientId, tenantId, scopes, dataProfileId }) {
      const now = Math.floor(deps.clock.now() / 1000);
      const tokenId = deps.ids();
      const claims: Record<string, unknown> = {
        scope: scopes.join(' '),
        [CLAIMS.tenantId]: tenantId,
        [CLAIMS.correlationId]: deps.ids(),
      };
      if (dataProfileId) claims[CLAIMS.dataProfileId] = dataProfileId;
      const accessToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, typ: ACCESS_TOKEN_TYP, kid })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(clientId)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_LIFETIME_S)
        .setJti(tokenId)
        .sign(privateKey);
      return { accessToken, expiresIn: TOKEN_LIFETIME_S, tokenId };
    },
    async verify(token) {
      // A token whose signature and claims checked out before: only its expiry can have changed.
      const seen = verified.get(token);
      if (seen) {
        if (seen.exp * 1000 > deps.clock.now()) return { ...seen.auth, scopes: [...seen.auth.scopes] };
        verified.delete(token);
      }
      let payload;
      try {
        ({ payload } = await jwtVerify(token, async (header) => {
          if (header.kid !== kid) throw invalidToken('unknown signing key');
          return publicKey;
        }, {
          algorithms: [ALG],
          // jose compares `typ` as a media type: 'at+jwt' and 'application/at+jwt' both pass (RFC 9068 §4).
          typ: ACCESS_TOKEN_TYP,
          issuer,
          audience,
          currentDate: new Date(deps.clock.now()),
          requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        }));
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw invalidToken('the access token has expired', 'token_expired');
        if (err instanceof joseErrors.JOSEError || err instanceof Error) throw invalidToken('the access token is not valid');
        throw err;
      }
      const tenantId = payload[CLAIMS.tenantId];
      const correlationId = payload[CLAIMS.correlationId];
      if (typeof payload.sub !== 'string' || typeof tenantId !== 'string' || typeof payload.scope !== 'string') {
        throw invalidToken('the access token lacks required claims');
      }
      const auth: AuthContext = {
        clientId: payload.sub,
        tenantId,
        scopes: payload.scope.split(' ').filter(Boolean),
        tokenId: String(payload.jti),
      };
      if (typeof correlationId === 'string') auth.correlationId = correlationId;
      setBounded(verified, token, { auth: { ...auth, scopes: [...auth.scopes] }, exp: Number(payload.exp) }, VERIFIED_TOKENS_MAX);
      return auth;
    },
  };
}
