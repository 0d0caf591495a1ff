// Token endpoint schemas (service-interface.md "Auth", "Access token response").
import { Type } from '@fastify/type-provider-typebox';

export const TokenRequest = Type.Object(
  {
    clientId: Type.String({ minLength: 1, maxLength: 256 }),
    clientSecret: Type.String({ minLength: 1, maxLength: 1024 }),
    scopes: Type.Optional(
      Type.Union([
        Type.Array(Type.String({ maxLength: 128 }), { maxItems: 64 }),
        Type.String({ maxLength: 4096, description: 'space-separated' }),
      ], { description: 'Scopes to grant; omitted: every scope the client holds' }),
    ),
    scope: Type.Optional(Type.String({ maxLength: 4096, description: 'OAuth 2.0 style space-separated alternative to scopes' })),
  },
  // Extra members (grant_type, audience, …) are ignored: liberal in what we accept.
  { additionalProperties: true },
);

export const TokenResponse = Type.Object({
  tokenType: Type.Literal('Bearer'),
  scope: Type.String({ description: 'Space-separated granted scopes' }),
  accessToken: Type.String({ description: 'EdDSA-signed JWT' }),
  expiresIn: Type.Integer({ description: 'Lifetime in seconds' }),
});
