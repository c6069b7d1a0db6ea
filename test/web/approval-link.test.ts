// Approving from a phone: a real hook process waits on an Edit; the notifier posts a signed
// webhook to a local receiver carrying a single-use link; Debian's Chromium, emulating a phone,
// opens it, sees the diff and allows the call, which releases the hook; the link is then dead.
// The dashboard's card shows the same Edit as a coloured diff.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { addLinkRoutes } from '../../src/gateway/link-routes.js';
import { PtyManager } from '../../src/gateway/pty/index.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { addWebRoutes } from '../../src/gateway/web-routes.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { LinkBook, startNotifications, type Notifier } from '../../src/runtime/notify/index.js';
import { startReceiver, type Receiver } from '../runtime/notify/receiver.js';
import { decisionsFor } from '../support/audit.js';
import { HOOK, testEnv } from '../support/cli.js';
import { CHROMIUM } from './support.js';

const WEB_DIR = resolve('dist/web');
const WAIT_MS = 20_000;
const ACCESS_TOKEN = 'b'.repeat(64);
const SECRET = 'webhook-secret-0123456789';
/** A phone in portrait, as Chromium's device emulation runs it. */
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

let base: string;
let root: string;
let state: string;
let receiver: Receiver;
let gw: Gateway;
let manager: PtyManager;
let notifier: Notifier | null;
let browser: Browser;
let sessionId: string;
const pageErrors: string[] = [];

/** Runs the real hook bundle on one PreToolUse payload; resolves with its exit status once it ends. */
function hookProcess(payload: unknown): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [HOOK, 'check', '--session', sessionId, '--event', 'PreToolUse', '--state-dir', state], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => done({ status, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

function editPayload(oldText: string, newText: string): unknown {
  return { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: join(root, 'src/app.ts'), old_string: oldText, new_string: newText } };
}

/** The webhook body the receiver got for `approvalId`, its signature checked. */
async function signedNotification(approvalId: string): Promise<{ approvals: { id: string; link?: string }[] }> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    for (const got of receiver.received) {
      const body = JSON.parse(got.body) as { approvals: { id: string; link?: string }[] };
      if (!body.approvals.some((a) => a.id === approvalId)) continue;
      const ts = String(got.headers['x-gatehouse-timestamp']);
      expect(got.headers['x-gatehouse-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(`${ts}.${got.body}`).digest('hex')}`);
      return body;
    }
    if (Date.now() > deadline) throw new Error(`no notification for ${approvalId}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function pendingId(): Promise<string> {
  const queue = new ApprovalQueue(state);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const p = queue.list()[0];
    if (p !== undefined) return p.id;
    if (Date.now() > deadline) throw new Error('no approval was filed');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function phonePage(): Promise<Page> {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  return page;
}

describe.skipIf(!existsSync(CHROMIUM))('approving through a single-use link on a phone', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'gh-link-')));
    root = join(base, 'repo');
    state = join(base, 'state');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'src', 'app.ts'), 'export const greeting = "hello";\nexport const answer = 41;\n');
    receiver = await startReceiver();
    writeFileSync(
      join(root, 'gatehouse.yaml'),
      `approvals:\n  interactive: true\n  timeout_s: 60\nnotify:\n  batch_ms: 0\n  webhooks:\n    - url: ${receiver.url}/hook\n      secret_env: GATEHOUSE_TEST_WEBHOOK_SECRET\n`,
    );
    const started = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
    if (!started.ok) throw new Error(started.reason);
    sessionId = started.value.policy.session_id;
    const links = new LinkBook();
    manager = new PtyManager({ projectRoot: root });
    gw = await startGateway({
      projectState: state,
      host: '127.0.0.1',
      port: 0,
      accessToken: ACCESS_TOKEN,
      tokens: [],
      log: () => {},
      websocket: { manager },
      routes: (router) => {
        addWebRoutes(router, { webDir: WEB_DIR, accessToken: ACCESS_TOKEN });
        addLinkRoutes(router, { queue: new ApprovalQueue(state), links, project: 'repo' });
      },
    });
    const config = loadConfig({ root });
    if (!config.ok) throw new Error(config.reason);
    const started2 = startNotifications({
      config: config.value.notify,
      queue: new ApprovalQueue(state),
      projectState: state,
      projectRoot: root,
      env: { GATEHOUSE_TEST_WEBHOOK_SECRET: SECRET },
      log: () => {},
      publicUrl: `${gw.url}/`,
      links,
    });
    if (!started2.ok) throw new Error(started2.reason);
    notifier = started2.value;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });

  afterAll(async () => {
    await browser?.close();
    await notifier?.close();
    await gw?.close();
    await manager?.dispose();
    await receiver?.close();
    if (base !== undefined) rmSync(base, { recursive: true, force: true });
  });

  it('notifies with a signed webhook whose link opens the call on a phone, allows it once, and refuses the link after', async () => {
    const hook = hookProcess(editPayload('export const answer = 41;', 'export const answer = 42;'));
    const id = await pendingId();
    const note = await signedNotification(id);
    const link = note.approvals.find((a) => a.id === id)?.link;
    expect(link).toMatch(new RegExp(`^${gw.url}/approve#t=[A-Za-z0-9_-]{43}$`));

    const page = await phonePage();
    await page.goto(link!);
    const card = page.locator(`article.approve-card[data-id="${id}"]`);
    await card.waitFor({ timeout: WAIT_MS });
    // The edit itself, against the file as it is: the removed and the added line.
    expect(await card.locator('.diff .del').allTextContents()).toEqual(['-export const answer = 41;']);
    expect(await card.locator('.diff .add').allTextContents()).toEqual(['+export const answer = 42;']);
    expect(await card.locator('.diff .add .tok-kw').first().textContent()).toBe('export');
    // Big enough to tap, and inside the screen.
    for (const name of ['Allow', 'Reject']) {
      const box = await card.getByRole('button', { name, exact: true }).boundingBox();
      expect(box!.width).toBeGreaterThanOrEqual(44);
      expect(box!.height).toBeGreaterThanOrEqual(44);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.viewport.width);
    }
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(PHONE.viewport.width);
    // GATEHOUSE_SCREENSHOTS=docs/img draws the page for docs/supervisor.md (at 2×, to keep the PNG small).
    const shots = process.env.GATEHOUSE_SCREENSHOTS;
    if (shots !== undefined && shots !== '') {
      const small = await browser.newContext({ ...PHONE, deviceScaleFactor: 2 });
      const shot = await small.newPage();
      await shot.goto(link!);
      await shot.locator('.diff .add').waitFor({ timeout: WAIT_MS });
      await shot.screenshot({ path: join(shots, 'phone-approval-link.png') });
      await small.close();
    }

    await card.locator('input.reason').fill('ok from my phone');
    await card.getByRole('button', { name: 'Allow', exact: true }).tap();
    await card.getByText('Allowed: the agent goes on with this call.').waitFor({ timeout: WAIT_MS });
    const released = await hook;
    expect(released.status, released.stderr).toBe(0);
    expect(decisionsFor(state, id)).toEqual([expect.objectContaining({ actor: 'link:webhook', data: expect.objectContaining({ decision: 'allow', reason: 'ok from my phone' }) })]);

    // A second use of the same link: the page says so, and the API answers 410.
    const again = await phonePage();
    await again.goto(link!);
    await again.getByText('This link has already been used').waitFor({ timeout: WAIT_MS });
    const token = new URL(link!).hash.slice('#t='.length);
    const api = await fetch(`${gw.url}/api/link/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, nonce: 'x', decision: 'allow' }) });
    expect(api.status).toBe(410);
  });

  it('shows an Edit on the dashboard card as a coloured diff, the first lines with "show all"', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `export const v${i} = ${i};`).join('\n');
    const hook = hookProcess(editPayload('export const answer = 42;', lines));
    const id = await pendingId();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${gw.url}/?token=${ACCESS_TOKEN}`);
    const card = page.locator(`li.approval[data-id="${id}"]`);
    await card.waitFor({ timeout: WAIT_MS });
    await card.locator('.diff .del').first().waitFor({ timeout: WAIT_MS });
    expect(await card.locator('.diff-head code').textContent()).toBe('src/app.ts');
    expect(await card.locator('.diff-head .counts').textContent()).toBe('+60 −1');
    expect(await card.locator('.diff .del').allTextContents()).toEqual(['-export const answer = 42;']);
    const shownBefore = await card.locator('.diff .line').count();
    expect(shownBefore).toBe(40);
    await card.getByRole('button', { name: /^Show all \d+ lines$/ }).click();
    expect(await card.locator('.diff .add').count()).toBe(60);
    await card.getByRole('button', { name: 'Reject', exact: true }).click();
    expect((await hook).status).toBe(2);
    await context.close();
  });

  it('ran without page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
