// An invitation given on the command line (`wallet accept URL`, `wallet create --mediator`),
// checked before a folder is opened or anything fetched: one that cannot hold an invitation (a
// server's base URL, an `_oob` that does not decode to one) is the user's input, a usage error
// (exit 2) as `conformance run --target` makes it, and the line says what to give instead.
import { inspectInvitationUrl } from '../conformance/oob-url.js';
import { refusalsOf } from '../conformance/types.js';
import { createResolver } from '../did/resolver.js';
import { toIdsyncError } from '../errors.js';
import { namesMediatorDid } from '../wallet/mediation.js';
import { parseInvitationUrl } from '../protocols/out-of-band.js';
import { usageError } from './errors.js';

/** What `wallet create --mediator` takes instead of a URL that holds no invitation. */
export const MEDIATOR_INVITATION_HINT =
  "give the mediator's invitation URL, which `idsync mediator` prints when it starts (…/invitation?_oobid=… or ?_oob=…), or its DID";
/** What `wallet create --mediator` takes instead of a DID that cannot name a mediator. */
const MEDIATOR_DID_HINT = "give the mediator's DID as `idsync mediator` prints it, or its invitation URL";
/** What `wallet accept` takes instead. */
export const ACCEPT_INVITATION_HINT = 'give the invitation URL as the inviter sent it (…?_oob=… or …?_oobid=…)';

/**
 * Refuses `value` as a usage error when it holds no invitation. A short URL (`?_oobid=`) passes:
 * what it stands for is known only once it is fetched, and the command fetches it once, itself.
 */
export async function checkInvitationArgument(value: string, name: string, hint: string): Promise<void> {
  const text = value.trim();
  if (isShortUrl(text)) return;
  try {
    // Only `_oob` URLs and the JSON forms get here: nothing to fetch, so nothing is.
    await parseInvitationUrl(text, { fetchShort: () => Promise.reject(new Error('not fetched while checking the argument')) });
  } catch (err) {
    const e = toIdsyncError(err);
    if (e.code !== 'invalid_invitation') throw err;
    throw usageError('invalid_invitation', `${name} holds no invitation (${why(e.message)}): ${hint}`);
  }
}

function isShortUrl(text: string): boolean {
  const inspection = inspectInvitationUrl(text);
  return inspection.oobid !== undefined && refusalsOf(inspection.results).length === 0;
}

/** The parser's reason without its own "invalid invitation URL:" lead, which the line already says. */
function why(message: string): string {
  return message.replace(/^invalid invitation(?: URL)?:\s*/i, '');
}

/**
 * `wallet create --mediator`: an invitation as above, or a DID whose method idsync resolves and
 * that is well formed. Found out here, without the network (did:web is not fetched here), so that
 * a mistyped DID is a usage error, and not "the mediator granted no mediation", which says it was asked.
 */
export async function checkMediatorArgument(value: string): Promise<void> {
  const name = `--mediator ${shown(value)}`;
  if (!namesMediatorDid(value)) return checkInvitationArgument(value, name, MEDIATOR_INVITATION_HINT);
  const did = value.trim();
  if (did.startsWith('did:web:')) return;
  const { didResolutionMetadata: meta } = await createResolver({ cache: false }).resolve(did);
  if (meta.error === 'invalidDid' || meta.error === 'methodNotSupported') {
    throw usageError('invalid_did', `${name} is not a DID idsync can use (${String(meta.message ?? meta.error)}): ${MEDIATOR_DID_HINT}`);
  }
}

/** A value as the error line repeats it: an invitation in full (`?_oob=`, JSON) or a did:peer:2 runs long. */
export function shown(value: string): string {
  return value.length > 80 ? `${value.slice(0, 79)}…` : value;
}
