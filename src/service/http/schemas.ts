// Schemas shared by routes: TypeBox gives both request validation and the OpenAPI document.
import { Type, type TSchema } from '@fastify/type-provider-typebox';

/** RFC 9457 problem details with our stable `code` and optional field errors. */
export const Problem = Type.Object(
  {
    type: Type.String({ description: 'URI reference identifying the problem type' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: 'The request path' }),
    code: Type.String({ description: 'Stable error code (docs/service.md "Errors")' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'JSON pointer or datapoint key' }),
          code: Type.Optional(Type.String()),
          message: Type.String(),
        }),
      ),
    ),
  },
  { additionalProperties: true, title: 'Problem' },
);

const problemContent = { 'application/problem+json': { schema: Problem } };

/** Success responses plus the problem responses every protected route can give. */
export function responses(success: Record<number, TSchema | { description: string; content?: unknown }>, extra: number[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = { ...success };
  for (const status of [400, 401, 403, 429, ...extra]) {
    out[status] = { description: problemDescription(status), content: problemContent };
  }
  return out;
}

/** Problem responses only (for routes without a bearer token, e.g. the token endpoint). */
export function problemResponses(statuses: number[]): Record<string, unknown> {
  return Object.fromEntries(statuses.map((s) => [s, { description: problemDescription(s), content: problemContent }]));
}

function problemDescription(status: number): string {
  const text: Record<number, string> = {
    400: 'Invalid request (invalid_request, malformed_json, …)',
    401: 'Missing, invalid or expired access token',
    403: 'The token lacks the required scope (insufficient_scope)',
    404: 'Unknown resource',
    409: 'Conflicting state',
    410: 'Gone',
    413: 'Body larger than 1 MiB (payload_too_large)',
    415: 'Unsupported media type',
    429: 'Rate limited (see Retry-After)',
    503: 'Temporarily unavailable: send the same request again after Retry-After seconds',
  };
  return text[status] ?? 'Problem';
}

// Ids are path segments and store-key parts: no '/' and no control characters.
export const ID_PATTERN = '^[^/\\u0000-\\u001f\\u007f]{1,256}$';

export const UserIdParams = Type.Object({
  userId: Type.String({ pattern: ID_PATTERN, description: 'The provider\'s id of the user' }),
});

export const Empty = Type.Object({}, { additionalProperties: true });
