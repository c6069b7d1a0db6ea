// The dashboard on a phone (Chromium emulating a 390×844 touch screen at 3× density) against a
// real gateway: approvals, then sessions, then the terminal full width; every control big enough
// for a finger and whole on screen; no sideways page scroll; the terminal fits its columns to the
// width, or scrolls them at full size. And the desktop layout stays side by side.
// GATEHOUSE_SCREENSHOTS=docs/img regenerates the screenshots docs/supervisor.md shows.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../src/gateway/pty/index.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { PHONE_MIN_COLS } from '../../src/web/fit.js';
import { boxOf, inViewport, pageWidths, terminalFit, visibleControls } from './phone-probe.js';
import type { DashboardServer } from './support.js';
import { CHROMIUM, startDashboardServer } from './support.js';

const WEB_DIR = resolve('dist/web');
const WAIT_MS = 20_000;
/** The smallest touch target Apple's and WCAG 2.5.5's guidelines accept, in CSS pixels. */
const TOUCH_PX = 44;
/** An iPhone 13/14's screen, as Chromium's device emulation gives it. */
const PHONE = { viewport: { width: 390, height: 844 }, screen: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
/** The font the terminal uses when it need not shrink (terminal-view.ts). */
const TERMINAL_FONT_PX = 13;
const SHOTS = process.env.GATEHOUSE_SCREENSHOTS;

/** Polls `probe` from here until it holds (the page's CSP forbids the evaluated predicates of waitForFunction). */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The controls smaller than a finger, or cut off, or reaching past the viewport's sides. */
async function badControls(page: Page): Promise<string[]> {
  const width = (await pageWidths(page)).innerWidth;
  return (await visibleControls(page)).flatMap((c) => {
    const why = [
      c.width < TOUCH_PX || c.height < TOUCH_PX ? `${Math.round(c.width)}×${Math.round(c.height)}` : '',
      c.whole ? '' : 'cut off or covered',
      c.x < 0 || c.x + c.width > width + 0.5 ? `spans ${Math.round(c.x)}..${Math.round(c.x + c.width)} of ${width}` : '',
    ].filter((w) => w !== '');
    return why.length === 0 ? [] : [`${c.what}: ${why.join(', ')}`];
  });
}

/** The terminal once it has fitted its box (a resize refits on the next frame): rows of its font fill the height. */
async function fitted(p: Page): Promise<Awaited<ReturnType<typeof terminalFit>>> {
  let fit = await terminalFit(p);
  await until(async () => {
    fit = await terminalFit(p);
    return fit.spareHeight >= 0 && fit.spareHeight < fit.cellHeight;
  }, 'the terminal to fill its box with rows');
  return fit;
}

/** The terminal's rendered rows, one string per row, trailing blanks trimmed. */
function terminalRows(p: Page): Promise<string[]> {
  return p.$$eval('#terminal .xterm-rows > div', (rows) => rows.map((r) => (r.textContent ?? '').trimEnd()));
}

let server: DashboardServer;
let browser: Browser;
let phone: BrowserContext;
let page: Page;
let project: string;
let session: PtyInfo;
const errors: string[] = [];

function watch(p: Page): void {
  p.on('console', (m) => {
    // The audit route belongs to the full gateway, not to this test's assembly; the page shows "unavailable".
    if (m.type() === 'error' && !m.location().url.endsWith('/api/audit/status')) errors.push(m.text());
  });
  p.on('pageerror', (e) => errors.push(e.message));
}

describe.skipIf(!existsSync(CHROMIUM))('dashboard on a phone', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(join(WEB_DIR, 'app.js'))) execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-phone-')));
    server = await startDashboardServer({ webDir: WEB_DIR, project });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    phone = await browser.newContext(PHONE);
    page = await phone.newPage();
    watch(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  it('signs in with a token typed on the phone, the sign-in form whole and big enough', async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#conn[data-state="unauthorized"]', { timeout: WAIT_MS });
    expect(await badControls(page)).toEqual([]);
    expect((await pageWidths(page)).scrollWidth).toBeLessThanOrEqual(PHONE.viewport.width);
    await page.fill('#signin-token', server.accessToken);
    await page.tap('#signin button[type="submit"]');
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
  });

  it('starts a session from the new-session dialog by touch, every field of it big enough and on screen', async () => {
    await page.tap('#new-session');
    await page.waitForSelector('#new-dialog[open]');
    await page.tap('#new-dialog input[value="agent"]');
    expect(await badControls(page)).toEqual([]);
    await page.tap('#new-dialog input[value="command"]');
    await page.fill('#new-command', '/bin/sh');
    await page.tap('#new-submit');
    await page.waitForSelector('#sessions li.attached', { timeout: WAIT_MS });
    const running = server.manager.list().filter((s) => s.state === 'running');
    expect(running).toHaveLength(1);
    session = running[0] as PtyInfo;
    // The new session's terminal is scrolled into view, the whole pane on screen.
    await until(() => inViewport(page, '.terminal-pane'), 'the terminal to scroll into view');
    expect(await inViewport(page, '.approvals-panel')).toBe(false);
  });

  it('stacks the approvals, then the sessions, then the terminal across the whole width', async () => {
    const queue = new ApprovalQueue(server.state);
    const pending = queue.enqueue({ session_id: 'sess-phone', agent: 'claude', tool: 'Bash', summary: 'Bash: rm -rf build && npm run build', ttlSeconds: 600 });
    await page.locator(`.approval[data-id="${pending.id}"]`).waitFor({ timeout: WAIT_MS });
    const approvals = await boxOf(page, '.approvals-panel');
    const sessions = await boxOf(page, '.sessions-panel');
    const terminal = await boxOf(page, '.terminal-pane');
    expect(approvals.bottom).toBeLessThanOrEqual(sessions.top + 0.5);
    expect(sessions.bottom).toBeLessThanOrEqual(terminal.top + 0.5);
    const { innerWidth } = await pageWidths(page);
    expect(terminal).toMatchObject({ left: 0, width: innerWidth });
    expect(await boxOf(page, '#terminal')).toMatchObject({ left: 0, width: innerWidth });
  });

  it('makes every control at least 44×44 and whole on screen, Allow, Reject and Close session included', async () => {
    const controls = await visibleControls(page);
    const names = controls.map((c) => c.what).join('\n');
    for (const must of ['button#close-session', 'button.decide.allow', 'button.decide.reject', 'li#session-', 'summary', 'input#notify-sound']) expect(names).toContain(must);
    expect(await badControls(page)).toEqual([]);
    // The confirmation's own buttons, Close session among them.
    await page.tap('#close-session');
    await page.waitForSelector('#close-dialog[open]');
    expect(await badControls(page)).toEqual([]);
    await page.tap('#close-keep');
    await page.waitForSelector('#close-dialog[open]', { state: 'detached' });
    await page.tap('#help-button');
    await page.waitForSelector('#help-dialog[open]');
    expect(await badControls(page)).toEqual([]);
    await page.tap('#help-dialog button[type="submit"]');
    await page.waitForSelector('#help-dialog[open]', { state: 'detached' });
    expect(server.manager.get(session.id)?.state).toBe('running');
    // Tapping the session in the list brings its terminal into view.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.tap(`#sessions li[data-id="${session.id}"]`);
    await until(() => inViewport(page, '.terminal-pane'), 'the terminal to scroll into view');
  });

  it('has no sideways page scroll at 390 px nor at 360 px', async () => {
    expect((await pageWidths(page)).scrollWidth).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 360, height: 780 });
    await until(async () => (await boxOf(page, '.terminal-pane')).width === 360, 'the layout to follow the 360 px viewport');
    const { scrollWidth, innerWidth } = await pageWidths(page);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    expect(await badControls(page)).toEqual([]);
    await page.setViewportSize(PHONE.viewport);
  });

  it('fits the PTY’s columns into the width by shrinking the font, and the shell agrees on the size', async () => {
    expect(await page.getAttribute('#fit-width', 'aria-pressed')).toBe('true');
    await until(async () => server.manager.get(session.id)?.cols === PHONE_MIN_COLS, `the PTY to get ${PHONE_MIN_COLS} columns`);
    // As many rows of the smaller font as fill the box, and all the columns inside its width.
    const fit = await fitted(page);
    expect(fit.fontPx).toBeLessThan(TERMINAL_FONT_PX);
    expect(fit.screenWidth).toBeLessThanOrEqual(fit.hostWidth);
    expect(fit.hostScrolls).toBe(false);
    await page.tap('#terminal');
    await page.keyboard.type('stty size');
    await page.keyboard.press('Enter');
    const rows = server.manager.get(session.id)?.rows ?? 0;
    await expect.poll(() => terminalRows(page), { timeout: WAIT_MS }).toContain(`${rows} ${PHONE_MIN_COLS}`);
    // A line of exactly 80 characters stays one row.
    await page.keyboard.type(`printf '%0${PHONE_MIN_COLS}d\\n' 0 | tr 0 =`);
    await page.keyboard.press('Enter');
    await expect.poll(() => terminalRows(page), { timeout: WAIT_MS }).toContain('='.repeat(PHONE_MIN_COLS));
  });

  it('at 360 px still fits the same columns, a little smaller', async () => {
    const at390 = (await fitted(page)).fontPx;
    await page.setViewportSize({ width: 360, height: 780 });
    await until(async () => (await terminalFit(page)).fontPx < at390, 'the font to shrink for 360 px');
    const fit = await fitted(page);
    expect(fit.hostScrolls).toBe(false);
    expect(fit.screenWidth).toBeLessThanOrEqual(fit.hostWidth);
    expect(server.manager.get(session.id)?.cols).toBe(PHONE_MIN_COLS);
    await page.setViewportSize(PHONE.viewport);
  });

  it('with fit-to-width off, keeps the full-size font and scrolls the terminal, not the page, and remembers it', async () => {
    await page.tap('#fit-width');
    await until(async () => (await terminalFit(page)).fontPx === TERMINAL_FONT_PX, 'the font to return to full size');
    const fit = await fitted(page);
    expect(fit.screenWidth).toBeGreaterThan(fit.hostWidth);
    expect(fit.hostScrolls).toBe(true);
    expect(server.manager.get(session.id)?.cols).toBe(PHONE_MIN_COLS);
    const { scrollWidth, innerWidth } = await pageWidths(page);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.reload();
    await page.waitForSelector(`#sessions li.attached[data-id="${session.id}"]`, { timeout: WAIT_MS });
    expect(await page.getAttribute('#fit-width', 'aria-pressed')).toBe('false');
    // Resumed after the reload (from the top) without scrolling away from the approvals.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.tap('#fit-width');
    await until(async () => (await terminalFit(page)).fontPx < TERMINAL_FONT_PX, 'the font to shrink again');
  });

  it('keeps the desktop layout side by side at 1280×760, the terminal fitted to its box at full size', async () => {
    const desk = await browser.newContext({ viewport: { width: 1280, height: 760 } });
    try {
      const p = await desk.newPage();
      watch(p);
      await p.goto(`${server.url}/?token=${server.accessToken}#session=${encodeURIComponent(session.id)}`);
      await p.waitForSelector(`#sessions li.attached[data-id="${session.id}"]`, { timeout: WAIT_MS });
      const sidebar = await boxOf(p, '.sidebar');
      const terminal = await boxOf(p, '.terminal-pane');
      expect(sidebar.left).toBe(0);
      expect(terminal.left).toBeGreaterThanOrEqual(sidebar.right);
      expect(terminal.right).toBe(1280);
      expect(terminal.top).toBe(sidebar.top);
      expect(await boxOf(p, '.approvals-panel').then((b) => b.top)).toBeGreaterThan((await boxOf(p, '.sessions-panel')).top);
      // One screen, no page scroll; the fit toggle is for narrow screens only.
      expect(await p.evaluate(() => document.scrollingElement?.scrollHeight)).toBe(760);
      expect(await p.isVisible('#fit-width')).toBe(false);
      // The desktop page took control: the PTY follows its wide box, at the full-size font.
      await until(async () => (server.manager.get(session.id)?.cols ?? 0) > PHONE_MIN_COLS, 'the PTY to widen to the desktop box');
      const fit = await fitted(p);
      expect(fit.fontPx).toBe(TERMINAL_FONT_PX);
      expect(fit.screenWidth).toBeLessThanOrEqual(fit.hostWidth);
    } finally {
      await desk.close();
    }
  });

  // At 2× rather than 3×: the same layout in CSS pixels, in PNGs small enough for the docs.
  it.skipIf(SHOTS === undefined || SHOTS === '')('draws the phone layout for the docs (GATEHOUSE_SCREENSHOTS)', async () => {
    const dir = SHOTS ?? '';
    mkdirSync(dir, { recursive: true });
    const shots = await browser.newContext({ ...PHONE, deviceScaleFactor: 2 });
    try {
      const p = await shots.newPage();
      watch(p);
      await p.goto(`${server.url}/?token=${server.accessToken}#session=${encodeURIComponent(session.id)}`);
      await p.waitForSelector('.approval', { timeout: WAIT_MS });
      await p.waitForSelector(`#sessions li.attached[data-id="${session.id}"]`, { timeout: WAIT_MS });
      await p.screenshot({ path: join(dir, 'phone-approvals.png') });
      await p.tap('#terminal');
      await p.keyboard.type('clear; ls -l /etc | head -24');
      await p.keyboard.press('Enter');
      await expect.poll(async () => (await terminalRows(p)).some((r) => r.startsWith('total ')), { timeout: WAIT_MS }).toBe(true);
      await p.locator('.terminal-pane').scrollIntoViewIfNeeded();
      await fitted(p);
      await p.screenshot({ path: join(dir, 'phone-terminal.png') });
    } finally {
      await shots.close();
    }
  });

  it('ran without console errors, CSP violations included', () => {
    expect(errors).toEqual([]);
  });
});
