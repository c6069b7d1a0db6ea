// What the phone-layout test measures in the page: every control a person can tap, with its
// box and whether anything clips or covers it, and the page's and the terminal's widths.
import type { Page } from 'playwright-core';

/** One tappable control as laid out: its hit target's box, and whether all of it can be hit. */
export interface ControlBox {
  /** A short name for messages: `button#close-session "Close session"`. */
  what: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Each corner (inset 1 px) hits the control itself: nothing cuts it off or covers it. */
  whole: boolean;
}

/**
 * Every visible control outside the terminal (whose input is xterm's hidden textarea), each
 * scrolled into view first; with a dialog open, only the dialog's (the rest is inert behind it). A checkbox or radio inside a `<label>` is measured as the label,
 * the target a finger actually hits (a tap anywhere on it toggles the box).
 */
export function visibleControls(page: Page): Promise<ControlBox[]> {
  return page.evaluate(() => {
    const out: ControlBox[] = [];
    const root = document.querySelector('dialog[open]') ?? document;
    for (const el of root.querySelectorAll('button, a[href], input, select, textarea, summary, #sessions li[data-id]')) {
      if (el.closest('.xterm') !== null || !el.checkVisibility({ visibilityProperty: true })) continue;
      const box = el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio') ? (el.closest('label') ?? el) : el;
      box.scrollIntoView({ block: 'center', inline: 'nearest' });
      const r = box.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const corners: [number, number][] = [
        [r.left + 1, r.top + 1],
        [r.right - 1, r.top + 1],
        [r.left + 1, r.bottom - 1],
        [r.right - 1, r.bottom - 1],
      ];
      const whole = corners.every(([x, y]) => {
        const hit = document.elementFromPoint(x, y);
        return hit !== null && (box.contains(hit) || hit.contains(box));
      });
      const label = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 30);
      const name = `${el.tagName.toLowerCase()}${el.id === '' ? '' : `#${el.id}`}${el.className === '' ? '' : `.${String(el.className).split(' ').join('.')}`}`;
      out.push({ what: `${name} "${label}"`, x: r.x, y: r.y, width: r.width, height: r.height, whole });
    }
    window.scrollTo(0, 0);
    return out;
  });
}

/** The page's scrollable width against its viewport's. */
export function pageWidths(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.scrollingElement?.scrollWidth ?? Number.POSITIVE_INFINITY, innerWidth: window.innerWidth }));
}

/** The top and the horizontal extent of a page element, by selector. */
export function boxOf(page: Page, selector: string): Promise<{ left: number; right: number; top: number; bottom: number; width: number }> {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, width: r.width };
  });
}

/** How the terminal's screen (cols × cells) sits in its box: whether it fits, and whether the box scrolls sideways. */
export function terminalFit(page: Page): Promise<{ screenWidth: number; hostWidth: number; hostScrolls: boolean; fontPx: number; spareHeight: number; cellHeight: number }> {
  return page.evaluate(() => {
    const host = document.getElementById('terminal');
    const screen = host?.querySelector('.xterm-screen');
    const rows = host?.querySelector('.xterm-rows');
    if (host === null || host === undefined || screen === null || screen === undefined || rows === null || rows === undefined) throw new Error('no terminal on the page');
    const style = getComputedStyle(host);
    const drawn = screen.getBoundingClientRect();
    const hostHeight = host.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    return {
      screenWidth: drawn.width,
      hostWidth: host.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
      spareHeight: hostHeight - drawn.height,
      cellHeight: drawn.height / rows.children.length,
      hostScrolls: host.scrollWidth > host.clientWidth,
      fontPx: parseFloat(getComputedStyle(rows).fontSize),
    };
  });
}

/** Whether all of a page element's height is on screen now. */
export function inViewport(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return r.top >= -0.5 && r.bottom <= window.innerHeight + 0.5;
  });
}
