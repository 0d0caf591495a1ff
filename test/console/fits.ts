// Whether a console page fits the window it is shown in: the page does not scroll sideways, every
// table, list, diagram, code block and form lies within the window, and one whose content is wider
// than itself scrolls that content (a person can reach it) instead of cutting it off.
import type { Page } from 'playwright-core';

/** What a person looks at on a console page and may be wider than a phone: the boxes checked. */
export const CONSOLE_BOXES = 'table, .msg-list, .diagram, pre, form, textarea, .mail, .invitation, header.top, main > section, main article';

export interface Fit {
  /** The page's width, and the window's: the first at most the second where the page fits. */
  page: number;
  window: number;
  /** Each box that lies outside the window ("table.users 8–612 of 375"), or whose content is wider than itself and does not scroll ("pre spills 40 px"). */
  misfits: string[];
}

// A string, not a function: the page's DOM is not in this project's TypeScript libs.
const measure = (boxes: string) => `(() => {
  const win = window.innerWidth;
  const misfits = [];
  for (const el of document.querySelectorAll(${JSON.stringify(boxes)})) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const name = el.tagName.toLowerCase() + (el.classList.length ? '.' + [...el.classList].join('.') : '');
    if (r.left < -0.5 || r.right > win + 0.5) misfits.push(name + ' ' + Math.round(r.left) + '–' + Math.round(r.right) + ' of ' + win);
    const style = getComputedStyle(el);
    const over = el.scrollWidth - el.clientWidth;
    // A box laid out as a table has no overflow of its own: its width is its columns'.
    if (over > 1 && style.display !== 'table' && style.overflowX !== 'auto' && style.overflowX !== 'scroll') misfits.push(name + (style.overflowX === 'visible' ? ' spills ' : ' cuts off ') + over + ' px');
  }
  return { page: document.documentElement.scrollWidth, window: win, misfits };
})()`;

/** How the page fits its window, checking the boxes `boxes` selects (a console page's by default). */
export async function fit(page: Page, boxes = CONSOLE_BOXES): Promise<Fit> {
  return (await page.evaluate(measure(boxes))) as Fit;
}
