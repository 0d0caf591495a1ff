// A part of a page that fetches itself again whenever the page's event stream says something
// changed (live.ts `changed`), or sends the event it names (a thread's page: `rows`, when rows of
// its thread came): its route answers the part alone when asked with `fragment=1`.
import { html, type Html } from '../html.js';

/**
 * `pollMs`: also fetch itself that often, for a part that is still moving (a run in progress): an
 * event lost on the way (a stream reconnecting, a swap under way when it came) then costs a few
 * seconds, not a page stuck on its last state.
 */
export function liveRegion(id: string, url: string, content: Html, event = 'changed', pollMs?: number): Html {
  const trigger = `${event} from:#live${pollMs ? `, every ${Math.max(1, Math.round(pollMs / 1000))}s` : ''}`;
  return html`<section id="${id}" hx-get="${url}" hx-trigger="${trigger}" hx-swap="outerHTML">${content}</section>`;
}
