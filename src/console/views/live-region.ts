// A part of a page that fetches itself again whenever the page's event stream says something
// changed (live.ts `changed`), or sends the event it names (a thread's page: `rows`, when rows of
// its thread came): its route answers the part alone when asked with `fragment=1`.
import { html, type Html } from '../html.js';

export function liveRegion(id: string, url: string, content: Html, event = 'changed'): Html {
  return html`<section id="${id}" hx-get="${url}" hx-trigger="${event} from:#live" hx-swap="outerHTML">${content}</section>`;
}
