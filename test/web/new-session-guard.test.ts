// The new-session form in Chromium: its choices (the sandbox too) survive a reload (secrets excepted), a known
// agent started as a plain command is stopped with a warning until confirmed or gated, and
// an API key on the command line shows nowhere on the page.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardServer } from './support.js';
import { CHROMIUM, launchChromium, startDashboardServer } from './support.js';

const WEB_DIR = resolve('dist/web');
/** Generous for a cold browser on a busy two-core machine; waits return as soon as they can. */
const WAIT_MS = 20_000;
/** What a user might paste into the command line. */
const SECRET = 'sk-ant-never-shown-0123456789';

let server: DashboardServer;
let context: BrowserContext;
let page: Page;
let profile: string;
let project: string;

async function openForm(p: Page): Promise<void> {
  await p.click('#new-session');
  await p.waitForSelector('#new-dialog[open]');
}

describe.skipIf(!existsSync(CHROMIUM))('the new-session form in Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(join(WEB_DIR, 'app.js'))) execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-form-')));
    // A stand-in `claude` in the project: the form judges the program by its name.
    writeFileSync(join(project, 'claude'), '#!/bin/sh\necho fake-claude-ran\nsleep 600\n');
    chmodSync(join(project, 'claude'), 0o755);
    server = await startDashboardServer({ webDir: WEB_DIR, project });
    profile = mkdtempSync(join(tmpdir(), 'gh-chromium-'));
    context = await launchChromium(profile);
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}/?token=${server.accessToken}`);
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  it('offers the agents of the server registry and keeps every choice across a reload', async () => {
    await openForm(page);
    await expect
      .poll(() => page.$$eval('#known-agents option', (os) => os.map((o) => (o as HTMLOptionElement).value)), { timeout: WAIT_MS })
      .toEqual(expect.arrayContaining(['claude', 'codex', 'cursor']));
    await page.check('input[name="mode"][value="agent"]');
    await page.fill('#new-agent', 'claude');
    await page.fill('#new-command', 'claude --model opus');
    await page.fill('#new-allow', 'src/**\ntest/');
    await page.fill('#new-require', 'test');
    await page.selectOption('#new-sandbox', 'none');
    await page.keyboard.press('Escape');

    await page.reload();
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
    await openForm(page);
    expect(await page.isChecked('input[name="mode"][value="agent"]')).toBe(true);
    expect(await page.isVisible('#new-agent')).toBe(true);
    expect(await page.inputValue('#new-agent')).toBe('claude');
    expect(await page.inputValue('#new-command')).toBe('claude --model opus');
    expect(await page.inputValue('#new-allow')).toBe('src/**\ntest/');
    expect(await page.inputValue('#new-require')).toBe('test');
    expect(await page.inputValue('#new-sandbox')).toBe('none');
    // The sandbox is an agent session's: a plain command does not offer it.
    await page.check('input[name="mode"][value="command"]');
    expect(await page.isHidden('#new-sandbox')).toBe(true);
    await page.keyboard.press('Escape');
  });

  it('stops a known agent started as a plain command with a warning; "Gate it" switches to a gated session', async () => {
    await openForm(page);
    await page.check('input[name="mode"][value="command"]');
    await page.fill('#new-command', './claude');
    await page.click('#new-submit');
    await page.waitForSelector('#new-warning:not([hidden])');
    expect(await page.textContent('#new-warning')).toMatch(/^claude is the claude agent, and this starts it without a gate/);
    expect(await page.textContent('#new-submit')).toBe('Start ungated');
    expect(await page.textContent('#new-gate')).toBe('Gate it as claude');
    expect(server.manager.list()).toHaveLength(0);

    await page.click('#new-gate');
    expect(await page.isChecked('input[name="mode"][value="agent"]')).toBe(true);
    expect(await page.inputValue('#new-agent')).toBe('claude');
    expect(await page.isHidden('#new-warning')).toBe(true);
    expect(await page.textContent('#new-submit')).toBe('Start');
    await page.keyboard.press('Escape');
  });

  it('starts it ungated only on a second, explicit Start, and an edit asks again', async () => {
    await openForm(page);
    await page.check('input[name="mode"][value="command"]');
    await page.fill('#new-command', './claude');
    await page.click('#new-submit');
    await page.waitForSelector('#new-warning:not([hidden])');
    await page.fill('#new-command', './claude --resume');
    expect(await page.isHidden('#new-warning')).toBe(true);
    await page.click('#new-submit');
    await page.waitForSelector('#new-warning:not([hidden])');
    expect(server.manager.list()).toHaveLength(0);
    await page.click('#new-submit');
    await page.waitForSelector('#sessions li.attached', { timeout: WAIT_MS });
    expect(server.manager.list().map((s) => [s.command, ...s.args])).toEqual([['./claude', '--resume']]);
  });

  it('shows no env value in the session list or title, and keeps none in localStorage', async () => {
    await page.click('#term-title');
    await page.keyboard.press('n');
    await page.waitForSelector('#new-dialog[open]');
    await page.check('input[name="mode"][value="command"]');
    await page.fill('#new-command', `env ANTHROPIC_API_KEY=${SECRET} /bin/sh -c 'sleep 600'`);
    await page.click('#new-submit');
    await expect.poll(() => page.locator('#sessions li[data-id]').count(), { timeout: WAIT_MS }).toBe(2);
    await page.waitForSelector('#new-dialog[open]', { state: 'detached' });
    await expect.poll(() => page.textContent('#sessions'), { timeout: WAIT_MS }).toContain('ANTHROPIC_API_KEY=***');
    expect(await page.textContent('body')).not.toContain(SECRET);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(SECRET);

    await page.reload();
    await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
    await page.waitForSelector('#sessions li[data-id]');
    expect(await page.textContent('body')).not.toContain(SECRET);
    await openForm(page);
    expect(await page.inputValue('#new-command')).toBe('');
  });
});
