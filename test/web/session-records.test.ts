// The dashboard shows what happened: every Gatehouse session of the project, CLI ones included,
// read from its state folder (so they survive a restart of the server), and a session's record.
// Debian's Chromium against a real gateway; the session is started, gated and checked by the real CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { gatehouse } from '../support/cli.js';
import { tryWrite } from '../support/rendered-hook.js';
import { CHROMIUM, launchChromium, startDashboardServer, until, WAIT_MS, type DashboardServer } from './support.js';

const WEB_DIR = resolve('dist/web');

let server: DashboardServer;
let context: BrowserContext;
let page: Page;
let profile: string;
let project: string;
let id: string;
const errors: string[] = [];

const text = async (selector: string): Promise<string> => (await page.locator(selector).textContent()) ?? '';

async function openDashboard(): Promise<void> {
  await page.goto(`${server.url}/?token=${server.accessToken}`);
  await page.waitForSelector('#conn[data-state="ready"]', { timeout: WAIT_MS });
}

describe.skipIf(!existsSync(CHROMIUM))('dashboard: recorded sessions', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(join(WEB_DIR, 'app.js'))) execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-records-')));
    mkdirSync(join(project, 'src'));
    server = await startDashboardServer({ webDir: WEB_DIR, project });
    profile = mkdtempSync(join(tmpdir(), 'gh-chromium-'));
    context = await launchChromium(profile);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/api/audit/status')) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await openDashboard();
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  it('lists a session started from the CLI after the server restarts', async () => {
    const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', project, '--state-dir', server.state, '--allow', 'src/**']);
    expect(started.status, started.stderr).toBe(0);
    id = started.stdout.trim();
    await server.close();
    server = await startDashboardServer({ webDir: WEB_DIR, project });
    await openDashboard();
    // A poll the page had in flight when the first server closed fails with ERR_CONNECTION_RESET:
    // expected of a restart, so only what the page logs from here on counts.
    errors.length = 0;
    await until(async () => (await text('#records')).includes(id), 'the CLI session to be listed');
    expect(await text(`#records [data-record="${id}"] .record-agent`)).toBe('claude');
    expect(await text('#records')).toContain('active');
    // The terminal list still holds only this server's PTYs: none.
    expect(await text('#sessions')).toContain('No sessions yet');
  });

  it('shows its timeline (a refusal with its reason, an approval with its principal), its verdict and evidence id', async () => {
    const refused = tryWrite(project, 'package.json');
    expect(refused.status).toBe(2);
    const queue = new ApprovalQueue(server.state);
    const asked = queue.enqueue({ session_id: id, agent: 'claude', tool: 'Bash', summary: 'Bash: npm publish', ttlSeconds: 60 });
    expect(queue.resolve(asked.id, { decision: 'allow', reason: 'fine once', principal: { id: 'os-user:ana', auth: 'local-shell' } }).ok).toBe(true);
    writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(project, 'notes.txt'), 'outside the allowlist\n');
    expect(gatehouse(['session', 'end', id, '--worktree', project, '--state-dir', server.state]).status).toBe(0);
    expect(gatehouse(['session', 'check', id, '--worktree', project, '--state-dir', server.state]).status).toBe(1);
    const meta = JSON.parse(readFileSync(join(server.state, 'sessions', id, 'meta.json'), 'utf8')) as { end_verdict: { evidence_id: string } };
    expect(meta.end_verdict.evidence_id).toMatch(/\S/);

    await openDashboard();
    await until(async () => (await text('#records')).includes('failed'), 'the ended session to show its verdict');
    await page.locator(`#records [data-record="${id}"]`).click();
    await until(async () => (await text('#record-body')).includes('Timeline'), 'the record to arrive');
    const events = page.locator('#record-body .record-event');
    expect(await events.count()).toBe(3);
    const write = events.nth(0);
    expect(await write.getAttribute('class')).toContain('refused');
    expect(await write.textContent()).toContain('refused Write package.json');
    expect(await write.locator('.record-reason').textContent()).toContain("package.json is outside this task's allowed paths (src/**)");
    const approval = events.nth(1);
    expect(await approval.locator('.record-what').textContent()).toBe('approval allowed for Bash by os-user:ana');
    expect(await approval.locator('.record-reason').textContent()).toBe('fine once');
    expect(await events.nth(2).textContent()).toContain('end-of-session check failed (scope_check)');
    expect(await text('#record-body .record-verdict')).toBe('failed');
    expect(await text('#record-body .record-summary')).toContain('notes.txt');
    expect(await text('#record-body .record-evidence')).toBe(`Evidence bundle: ${meta.end_verdict.evidence_id}`);
    expect(await text('#record-body .record-audit')).toContain('Audit log: intact');
    // The changes since the start: both files, created, each all added.
    const notes = page.locator('#record-body .record-file[data-path="notes.txt"]');
    expect(await notes.locator('.change').textContent()).toBe('created');
    expect(await notes.locator('.diff-add').textContent()).toBe('+outside the allowlist\n');
    expect(await page.locator('#record-body .record-file[data-path="src/a.ts"] .diff-add').textContent()).toBe('+export const a = 1;\n');
    expect(errors).toEqual([]);
  });

  it('shows the agent’s file names and contents as text, never as markup', async () => {
    const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', project, '--state-dir', server.state, '--allow', 'src/**']);
    const hostile = started.stdout.trim();
    writeFileSync(join(project, 'src', '<img src=x onerror=alert(1)>.ts'), '<script>window.__owned = 1</script>\n');
    await openDashboard();
    await until(async () => (await text('#records')).includes(hostile), 'the new session to be listed');
    await page.locator(`#records [data-record="${hostile}"]`).click();
    await until(async () => (await text('#record-body')).includes('Changes since the start'), 'the record to arrive');
    expect(await text('#record-body')).toContain('<img src=x onerror=alert(1)>.ts');
    expect(await text('#record-body .record-diff')).toContain('+<script>window.__owned = 1</script>');
    expect(await page.locator('#record-body img, #record-body script').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
