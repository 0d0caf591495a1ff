// What an out-of-band invitation URL shows a person: DIDComm v2.1 §Standard Message Encoding,
// "the full URL should return human readable instructions when loaded in a browser. This is
// intended to aid new users." A page with the URL as a QR code and as text, and the invitation
// itself; agents and scripts (which ask for JSON, or for nothing in particular) get the JSON.
import QRCode from 'qrcode';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** A client that asked for JSON and not for HTML. */
export function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return /application\/(?:[\w.+-]*\+)?json/i.test(accept) && !/text\/html/i.test(accept);
}

/**
 * A browser: it names text/html in Accept (RFC 9110 §12.5.1). Clients that do not (curl, fetch,
 * wallets resolving a short URL) keep the JSON they can act on.
 */
export function wantsHtml(accept: string | undefined): boolean {
  return /text\/html|application\/xhtml\+xml/i.test(accept ?? '') && !wantsJson(accept);
}

export const PAGE_STYLE = 'body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}';

export interface InvitationPage {
  /** The page's title and heading, e.g. "Connect your wallet". */
  heading: string;
  /** What to do with it, one sentence. */
  lead: string;
  /** The URL the QR code holds and the page shows first. */
  url: string;
  invitation: unknown;
  /** More URLs for the same invitation (e.g. its full form beside a short one). */
  more?: Array<{ label: string; url: string }>;
}

/** The page; a URL too long for a QR code is shown as text only. */
export async function invitationPage(p: InvitationPage): Promise<string> {
  let qr = '';
  try {
    qr = await QRCode.toString(p.url, { type: 'svg', errorCorrectionLevel: 'L', margin: 2 });
  } catch {
    qr = '<p>(The invitation is too long for a QR code.)</p>';
  }
  const more = (p.more ?? []).map((m) => `<h2>${escapeHtml(m.label)}</h2><code>${escapeHtml(m.url)}</code>\n`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(p.heading)}</title>
<style>${PAGE_STYLE}
.qr svg{width:18rem;height:18rem}code,pre{word-break:break-all;white-space:pre-wrap;background:#f4f4f4;padding:.5rem;display:block}</style>
</head><body>
<h1>${escapeHtml(p.heading)}</h1>
<p>${escapeHtml(p.lead)}</p>
<div class="qr">${qr}</div>
<h2>Invitation URL</h2><code id="invitation-url">${escapeHtml(p.url)}</code>
${more}<h2>Invitation</h2><pre>${escapeHtml(JSON.stringify(p.invitation, null, 2))}</pre>
</body></html>`;
}

/** A problem a person met opening a URL (RFC 9457's status, code and detail), with what to do about it. */
export interface ProblemPage {
  status: number;
  code: string;
  detail: string;
  heading: string;
  advice: string;
}

/** The page a browser gets instead of problem JSON: the same status, code and detail, for a person. */
export function problemPage(p: ProblemPage): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(p.heading)}</title>
<style>${PAGE_STYLE}</style>
</head><body>
<h1>${escapeHtml(p.heading)}</h1>
<p id="detail">${escapeHtml(p.detail)}</p>
<p>${escapeHtml(p.advice)}</p>
<p><small>HTTP ${p.status} · <code id="code">${escapeHtml(p.code)}</code></small></p>
</body></html>`;
}
