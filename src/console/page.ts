// The console's page shell: the stylesheet and scripts (files only, the CSP admits no inline
// script), the navigation of this console (the service's or a wallet's), who is signed in, and
// the live stream a page follows. A page that follows one names its stream URL: the
// `#live` element connects to it (htmx hx-sse), and regions of the page refresh when it says
// something changed.
import { html, type Html, type HtmlValue } from './html.js';

export interface NavItem {
  key: string;
  href: string;
  label: string;
}

export interface PageOptions {
  title: string;
  /** Which console: shown beside the title, e.g. "service twin" or "wallet". */
  kind: string;
  nav: readonly NavItem[];
  active?: string;
  /** Who is signed in (absent on the login page). */
  signedIn?: string;
  /** The SSE URL this page follows. */
  stream?: string;
  body: HtmlValue;
}

const ASSET = (name: string) => `/console/assets/${name}`;

export function page(o: PageOptions): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorCSS": false}'>
<title>${o.title} · idsync console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET('console.css')}">
<!-- A phone's window: facts, forms and messages go onto more lines (narrow.css), on top of what console.css does below a desktop's width; a wider window never reads it. -->
<link rel="stylesheet" href="${ASSET('narrow.css')}" media="(max-width: 640px)">
</head>
<body>
<header class="top">
  <a class="brand" href="/console">idsync <span>console · ${o.kind}</span></a>
  <nav>${o.nav.map((n) => html`<a href="${n.href}"${n.key === o.active ? html` aria-current="page"` : ''}>${n.label}</a>`)}</nav>
  ${o.signedIn !== undefined
    ? html`<form class="signout" method="post" action="/console/logout"><span>${o.signedIn}</span><button type="submit">Sign out</button></form>`
    : ''}
</header>
${o.stream ? html`<div id="live" hidden hx-sse:connect="${o.stream}"></div>` : ''}
<main>
${o.body}
</main>
<!-- Not deferred, at the end: htmx starts at DOMContentLoaded only while the document is still
loading, and so after its SSE extension has registered (deferred, it may start before). -->
<script src="${ASSET('htmx.js')}"></script>
<script src="${ASSET('hx-sse.js')}"></script>
<script src="${ASSET('console.js')}"></script>
</body>
</html>
`;
}
