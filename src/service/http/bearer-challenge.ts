// The WWW-Authenticate challenge of 401 and 403 answers (RFC 6750 §3): the route guard and the
// problem handlers both send it.
export function bearerChallenge(error?: string, description?: string, scope?: string): string {
  const parts = ['Bearer realm="idsync"'];
  if (error) parts.push(`error="${error}"`);
  // Quotes and backslashes are not allowed inside auth-param quoted strings we emit.
  if (description) parts.push(`error_description="${description.replace(/["\\]/g, "'")}"`);
  if (scope) parts.push(`scope="${scope}"`);
  return parts.join(', ');
}
