// Scope names. The spec lists the scopes a client's token carries (service-interface.md
// "Access token response") and the two issuance scopes; `idsync:admin` is our extension for
// the configuration API (docs/service.md "Admin API").

export const SPEC_SCOPES = [
  'read:settings',
  'update:settings',
  'read:members',
  'create:member-invitations',
  'read:member-invitations',
  'update:member-invitations',
  'delete:member-invitations',
  'read:identifiers',
  'update:identifiers',
  'read:trusted-issuers',
  'create:data-profiles',
  'read:data-profiles',
  'read:credential-manifests',
  'read:presentation-definitions',
  'read:verifiable-documents',
  'read:evidence-attachments',
  'verify:credentials',
  'verify:presentations',
  'read:provider-users',
  'read:provider-user-settings',
  'upsert:provider-users',
  'upsert:provider-user-claims',
  'read:provider-user-sync-sessions',
  'create:provider-user-sync-sessions',
  'start:provider-user-sync-sessions',
  'read:provider-sync-data',
  'read:provider-sync-sessions',
] as const;

export const ISSUANCE_SCOPES = ['create:issuance-workflows', 'send:issuance-workflows'] as const;

/** Configuration API (projects, data profiles, issuance settings, webhooks, partners, dev outbox). */
export const ADMIN_SCOPE = 'idsync:admin';

/** Every scope the service knows; a token request naming anything else gets invalid_scope. */
export const ALL_SCOPES: readonly string[] = [...SPEC_SCOPES, ...ISSUANCE_SCOPES, ADMIN_SCOPE];

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}
