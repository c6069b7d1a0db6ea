// The dashboard gets a person's attention when a call starts waiting: the tab title counts the
// queue, and with permission a system notification names each new call while the tab is behind.
// Debian's Chromium against a real gateway; the queue is filed to as a hook would.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/approvals/principal.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { CHROMIUM, launchChromium, startDashboardServer, until, WAIT_MS, type DashboardServer } from './support.js';

const WEB_DIR = resolve('dist/web');
const ana: Principal = { id: 'os-user:ana', auth: 'local-shell' };

let server: DashboardServer;
let context: BrowserContext;
let page: Page;
let profile: string;
let project: string;
const errors: string[] = [];

/** The notifications the page made, recorded by wrapping the browser's own constructor. */
const RECORD_NOTIFICATIONS = `(() => {
  const Real = window.Notification;
  window.__shown = [];
  class Recorded extends Real {
    constructor(title, options) { super(title, options); window.__shown.push({ title, body: options && options.body, tag: options && options.tag }); }
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  Recorded.requestPermission = (...a) => Real.requestPermission(...a);
  window.Notification = Recorded;
})();`;

describe.skipIf(!existsSync(CHROMIUM))('dashboard attention', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(join(WEB_DIR, 'app.js'))) execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-attention-')));
    server = await startDashboardServer({ webDir: WEB_DIR, project });
    profile = mkdtempSync(join(tmpdir(), 'gh-chromium-'));
    context = await launchChromium(profile);
    await context.grantPermissions(['notifications'], { origin: server.url });
    await context.addInitScript(RECORD_NOTIFICATIONS);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/api/audit/status')) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/?token=${server.accessToken}`);
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  it('counts waiting calls in the tab title, and clears it when they are answered', async () => {
    expect(await page.title()).toBe('Gatehouse');
    const queue = new ApprovalQueue(server.state);
    const a = queue.enqueue({ session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'Bash: npm publish', ttlSeconds: 120 });
    const b = queue.enqueue({ session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'Bash: git push --force', ttlSeconds: 120 });
    await until(async () => (await page.title()) === '(2) Gatehouse: approval needed', 'the title to count two calls');
    expect(queue.resolve(a.id, { decision: 'allow', principal: ana }).ok).toBe(true);
    expect(queue.resolve(b.id, { decision: 'reject', principal: ana }).ok).toBe(true);
    await until(async () => (await page.title()) === 'Gatehouse', 'the title to clear');
  });

  it('shows the permission state, and notifies about a new call while the tab is behind, once', async () => {
    expect(await page.locator('#notify-bell').textContent()).toBe('Notifications on');
    // The tab goes behind another window, as when the person works elsewhere.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.hasFocus = () => false;
    });
    const queue = new ApprovalQueue(server.state);
    const p = queue.enqueue({ session_id: 's1', agent: 'codex', tool: 'shell', summary: 'shell: rm -rf dist\nand more', ttlSeconds: 120 });
    await until(async () => (await page.evaluate(() => (window as unknown as { __shown: unknown[] }).__shown.length)) > 0, 'a notification');
    queue.enqueue({ session_id: 's1', agent: 'codex', tool: 'shell', summary: 'shell: ls', ttlSeconds: 120 });
    await until(async () => (await page.title()) === '(2) Gatehouse: approval needed', 'the title to count two calls');
    const shown = await page.evaluate(() => (window as unknown as { __shown: { title: string; body: string; tag: string }[] }).__shown);
    expect(shown[0]).toEqual({ title: 'Approval needed: shell', body: 'codex: shell: rm -rf dist …', tag: p.id });
    expect(shown.filter((n) => n.tag === p.id)).toHaveLength(1);
  });

  it('keeps the sound choice across a reload', async () => {
    await page.locator('#notify-sound').check();
    await page.reload();
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
    expect(await page.locator('#notify-sound').isChecked()).toBe(true);
  });

  it('shows every field of a request inert, as the CLI and the TUI do, whatever the file holds', async () => {
    const queue = new ApprovalQueue(server.state);
    const p = queue.enqueue({ session_id: 's1', agent: 'claude', tool: 'mcp__x\u202Eevil', summary: 'mcp__x call \u202Egnp.exe', why: 'asked \u001b[2K here', ttlSeconds: 120 });
    const card = page.locator(`li.approval[data-id="${p.id}"]`);
    await card.waitFor({ timeout: WAIT_MS });
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('mcp__x<U+202E>evil');
    expect(text).toContain('call <U+202E>gnp.exe');
    expect(text).toContain('asked <U+001B>[2K here');
    for (const raw of ['\u202E', '\u001b']) expect(text).not.toContain(raw);
    expect(queue.resolve(p.id, { decision: 'reject', principal: ana }).ok).toBe(true);
  });

  it('ran without console errors', () => {
    expect(errors).toEqual([]);
  });
});
