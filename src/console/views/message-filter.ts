// The message view's filters: a user (service: the messages to and from the wallet DIDs it has
// linked, and its workflows' threads), a thread (the thread and its child threads), a message type
// (any part of the type URI) and a verdict (the worst of a message's rule verdicts).
import { threadOf, type LoggedMessage } from '../../store/messages.js';
import { query } from '../html.js';
import { VERDICTS, worstVerdict, type Verdict } from '../verdicts.js';
import type { ConsoleContext } from '../context.js';

export interface MessageFilter {
  user?: string;
  thid?: string;
  type?: string;
  verdict?: Verdict;
}

const text = (v: unknown, max = 512): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : undefined);

export function parseFilter(q: unknown): MessageFilter {
  const r = (q ?? {}) as Record<string, unknown>;
  const verdict = text(r.verdict);
  return {
    ...(text(r.user) ? { user: text(r.user)! } : {}),
    ...(text(r.thid, 2048) ? { thid: text(r.thid, 2048)! } : {}),
    ...(text(r.type) ? { type: text(r.type)! } : {}),
    ...(verdict && (VERDICTS as readonly string[]).includes(verdict) ? { verdict: verdict as Verdict } : {}),
  };
}

export function filterQuery(f: MessageFilter): string {
  return query({ user: f.user, thid: f.thid, type: f.type, verdict: f.verdict });
}

export function isFiltered(f: MessageFilter): boolean {
  return Object.keys(f).length > 0;
}

export type Matcher = (m: LoggedMessage) => boolean;

/**
 * A predicate for `f`. The user's DIDs are read again at most once a second, so that a stream opened
 * before the user linked a wallet shows its messages once it has.
 */
export async function matcherOf(ctx: ConsoleContext, tenantId: string | undefined, f: MessageFilter): Promise<Matcher> {
  let ofUser: Matcher | undefined;
  let readAt = 0;
  const refreshUser = async () => {
    if (f.user === undefined || !ctx.userMessages) return;
    // Marked read before the read ends: records arriving meanwhile start no read of their own.
    readAt = Date.now();
    ofUser = await ctx.userMessages(tenantId, f.user);
  };
  await refreshUser();
  const type = f.type?.toLowerCase();
  const match: Matcher = (m) => {
    if (f.user !== undefined && !(ofUser?.(m) ?? false)) {
      if (Date.now() - readAt > 1000) void refreshUser().catch(() => undefined);
      return false;
    }
    if (f.thid !== undefined && threadOf(m) !== f.thid && m.pthid !== f.thid) return false;
    if (type !== undefined && !m.type.toLowerCase().includes(type)) return false;
    if (f.verdict !== undefined && worstVerdict(m.conformance) !== f.verdict) return false;
    return true;
  };
  return match;
}
