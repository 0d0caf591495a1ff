// Headers on every console response. The Content-Security-Policy admits this origin only, and
// scripts only as files (script-src 'self': no inline script, no eval); styles only from the
// stylesheet; images only from this origin or inline data (QR codes are inline SVG markup, not
// images). Nothing may frame the console, and a form may post only back to it.
import type { FastifyRequest } from 'fastify';
import { problem } from '../service/http/problem.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: with it a browser sends `Origin: null` on the console's own form posts.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * A state-changing request must come from a console page: a browser names the page's origin in
 * Origin (and Sec-Fetch-Site); another site's form is refused even where SameSite did not stop the
 * cookie. Scripts without those headers (curl with a bearer token) pass.
 */
export function assertSameOrigin(request: FastifyRequest): void {
  const refuse = () => problem('forbidden', 'console changes are accepted from console pages only');
  // Fetch Metadata: 'same-origin' from a console page, 'none' when a person opened it themselves.
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    if (site !== 'same-origin' && site !== 'none') throw refuse();
    return;
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const host = request.headers.host;
  if (!host || origin !== `${request.protocol}://${host}`) throw refuse();
}
