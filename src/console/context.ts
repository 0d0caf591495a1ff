// What every view of one console is handed: which party it shows (the service twin or a wallet),
// its navigation, the live hub, the message feed, and how to wrap a body into a page for the
// signed-in principal.
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { LoggedMessage } from '../store/messages.js';
import type { ConformanceRunner } from './conformance/runner.js';
import type { Html, HtmlValue } from './html.js';
import type { LiveHub } from './live.js';
import type { MessageFeed } from './message-feed.js';
import { page, type NavItem } from './page.js';

/** The views every console has (scope.ts registers them): its messages and its threads. */
export const MESSAGE_NAV: readonly NavItem[] = [
  { key: 'messages', href: '/console/messages', label: 'Messages' },
  { key: 'threads', href: '/console/threads', label: 'Threads' },
];

export interface ConsoleContext {
  kind: 'service' | 'wallet' | 'mediator';
  /** Shown in the header: "service twin", "wallet" or "mediator". */
  label: string;
  nav: readonly NavItem[];
  hub: LiveHub;
  feed: MessageFeed;
  clock: Clock;
  /** This party as drawn in sequence diagrams, and its DIDs (long and short forms). */
  self: { name: string; dids(): string[] };
  /** The messages of a user (service only): a predicate over log records, for the tenant signed in. */
  userMessages?(tenantId: string | undefined, userId: string): Promise<(m: LoggedMessage) => boolean>;
  /** Whether this party knows a thread no logged message is of (its protocol state names it). */
  knowsThread?(tenantId: string | undefined, thid: string): Promise<boolean>;
  /** A name for a peer DID in diagrams and rows (a user id on the service), if one is known. */
  peerName?(tenantId: string | undefined, did: string): Promise<string | undefined>;
  /** Conformance runs started here, and the targets offered with one click (this party's own agents). */
  conformance?: { runner: ConformanceRunner; targets(): Promise<ConformanceTarget[]> };
}

/** A target offered with one click; its DID is looked up only when a run is started (the wallet may not exist before). */
export interface ConformanceTarget {
  key: string;
  label: string;
  /** A DID or an invitation URL. */
  target(): Promise<string>;
}

export function renderPage(ctx: ConsoleContext, request: FastifyRequest, o: { title: string; active?: string; stream?: string; body: HtmlValue }): Html {
  const p = request.consolePrincipal;
  return page({
    title: o.title,
    kind: ctx.label,
    nav: ctx.nav,
    ...(o.active ? { active: o.active } : {}),
    ...(p ? { signedIn: p.tenantId ? `${p.subject} (tenant ${p.tenantId})` : p.subject } : {}),
    ...(o.stream ? { stream: o.stream } : {}),
    body: o.body,
  });
}
