// The dashboard in Chromium: a pasted token survives a reload (it becomes the HttpOnly
// cookie, never part of a URL), `s` then Enter attaches a session, and "Close session"
// asks before it ends a running program.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardServer } from './support.js';
import { CHROMIUM, launchChromium, startDashboardServer } from './support.js';

const WEB_DIR = resolve('dist/web');
/** Generous for a cold browser on a busy two-core machine; waits return as soon as they can. */
const WAIT_MS = 20_000;
/** Long enough to outlive the test; the server reaps it on close. */
const SLEEPER = { command: '/bin/sh', args: ['-c', 'sleep 600'], cwd: '.' };

let server: DashboardServer;
let context: BrowserContext;
let page: Page;
let profile: string;
let project: string;
const urls: string[] = [];

describe.skipIf(!existsSync(CHROMIUM))('sign-in, keys and close in Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(join(WEB_DIR, 'app.js'))) execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-sign-in-')));
    server = await startDashboardServer({ webDir: WEB_DIR, project });
    profile = mkdtempSync(join(tmpdir(), 'gh-chromium-'));
    context = await launchChromium(profile);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (r) => urls.push(r.url()));
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  it('refuses a wrong pasted token with what to do, and sets no cookie', async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#conn[data-state="unauthorized"]', { timeout: WAIT_MS });
    await page.fill('#signin-token', 'not-the-token-0123456789');
    await page.press('#signin-token', 'Enter');
    await expect.poll(() => page.textContent('#conn'), { timeout: WAIT_MS }).toMatch(/^That is not this server.s access token.*gatehouse serve/);
    expect(await context.cookies(server.url)).toEqual([]);
    // The page keeps retrying its socket (every 5 s once refused): the sign-in and its message stay up throughout.
    await page.evaluate(() => {
      const seen = globalThis as unknown as { signInHidden?: boolean };
      seen.signInHidden = false;
      const form = document.getElementById('signin');
      if (form !== null) new MutationObserver(() => (seen.signInHidden ||= form.hidden)).observe(form, { attributeFilter: ['hidden'] });
    });
    await page.waitForTimeout(6_000);
    expect(await page.evaluate(() => (globalThis as unknown as { signInHidden?: boolean }).signInHidden)).toBe(false);
    expect(await page.textContent('#conn')).toMatch(/^That is not this server.s access token/);
  });

  it('keeps a pasted token across a reload as an HttpOnly strict cookie, never in a URL', async () => {
    await page.fill('#signin-token', server.accessToken);
    await page.press('#signin-token', 'Enter');
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
    expect(await page.inputValue('#signin-token')).toBe('');
    const cookie = (await context.cookies(server.url)).find((c) => c.name === 'gatehouse_token');
    expect(cookie).toMatchObject({ value: server.accessToken, httpOnly: true, sameSite: 'Strict', path: '/' });
    // The page cannot read it back, and keeps no copy of its own.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain(server.accessToken);

    await page.reload();
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
    expect(await page.isVisible('#signin')).toBe(false);
    expect(urls.some((u) => u.includes(server.accessToken))).toBe(false);
  });

  it('trades a #token= fragment for the cookie too, and drops it from the address bar', async () => {
    await context.clearCookies();
    await page.goto('about:blank');
    await page.goto(`${server.url}/#token=${server.accessToken}`);
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
    expect(page.url()).toBe(`${server.url}/`);
    await page.reload();
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
  });

  it('attaches a session with s then Enter on a fresh page, without j first', async () => {
    const older = server.manager.spawn(SLEEPER);
    await new Promise((r) => setTimeout(r, 20));
    const newer = server.manager.spawn(SLEEPER);
    if (!older.ok || !newer.ok) throw new Error('spawn failed');
    await page.goto(`${server.url}/`);
    await page.waitForSelector(`#sessions li[data-id="${newer.value.id}"]`, { timeout: WAIT_MS });
    await page.click('#term-title');
    await page.keyboard.press('s');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#sessions li.attached[data-id="${newer.value.id}"]`, { timeout: WAIT_MS });

    // And on a page that just loaded, Enter alone takes the newest session.
    await page.goto(`${server.url}/`);
    await page.waitForSelector(`#sessions li[data-id="${older.value.id}"]`, { timeout: WAIT_MS });
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#sessions li.attached[data-id="${newer.value.id}"]`, { timeout: WAIT_MS });
  });

  it('asks before closing a running session; keeping it (the default) or Esc leaves it running', async () => {
    const id = (await page.getAttribute('#sessions li.attached', 'data-id')) ?? '';
    await page.click('#close-session');
    await page.waitForSelector('#close-dialog[open]');
    expect(await page.textContent('#close-text')).toMatch(/is still running\. Closing hangs up its terminal and ends it/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('close-keep');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#close-dialog[open]', { state: 'detached' });
    await page.click('#close-session');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#close-dialog[open]', { state: 'detached' });
    await new Promise((r) => setTimeout(r, 300));
    expect(server.manager.get(id)?.state).toBe('running');

    await page.click('#close-session');
    await page.click('#close-confirm');
    await page.waitForSelector(`#sessions li[data-id="${id}"] .state-exited`, { timeout: WAIT_MS });
    expect(server.manager.get(id)?.exit?.reason).toBe('closed');
  });
});
