// The header's audit badge in Chromium, against the real `/api/audit/status` over a log
// with an edited event: it names the first bad seq and why, never `[object Object]`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/runtime/audit/log.js';
import { loadOrCreateKey } from '../../src/runtime/keys.js';
import type { DashboardServer } from './support.js';
import { CHROMIUM, launchChromium, startDashboardServer } from './support.js';

const WEB_DIR = resolve('dist/web');
/** Generous for a cold browser on a busy two-core machine; waits return as soon as they can. */
const WAIT_MS = 20_000;

let server: DashboardServer;
let context: BrowserContext;
let page: Page;
let profile: string;
let project: string;

describe.skipIf(!existsSync(CHROMIUM))('the audit badge in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(join(WEB_DIR, 'app.js'))) execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-audit-badge-')));
    server = await startDashboardServer({ webDir: WEB_DIR, project });
    profile = mkdtempSync(join(tmpdir(), 'gh-chromium-'));
    context = await launchChromium(profile);
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  it('says the log verified, then names the first edited event and why once it is tampered with', async () => {
    const audit = join(server.state, 'audit');
    mkdirSync(audit, { recursive: true });
    const key = loadOrCreateKey(server.state);
    const log = new AuditLog(audit);
    for (let i = 0; i < 6; i++) {
      log.append({
        type: 'gate_decision',
        actor: 'system:hook-gate',
        session_id: 's1',
        data: { event: 'pre_tool', tool: 'Edit', targets: [`src/f${i}.ts`], decision: 'allow', rule: 'allowlist', input_digest: `sha256:${i}` },
      });
      if (i === 3) log.checkpoint(key);
    }
    await page.goto(`${server.url}/?token=${server.accessToken}`);
    await expect.poll(() => page.textContent('#audit'), { timeout: WAIT_MS }).toMatch(/^audit: verified, 6 events, checkpoint at 4/);

    const lines = readFileSync(log.logPath, 'utf8').split('\n');
    lines[2] = (lines[2] ?? '').replace('"decision":"allow"', '"decision":"block"');
    writeFileSync(log.logPath, lines.join('\n'));
    await page.reload();
    const badge = page.locator('#audit[data-state="bad"]');
    await badge.waitFor({ timeout: WAIT_MS });
    const text = (await badge.textContent()) ?? '';
    expect(text).toMatch(/^audit: verification FAILED at event seq 2 of 6: .*hash does not match/);
    expect(text).not.toContain('[object Object]');
    expect(await badge.getAttribute('title')).toMatch(/^First problem at event seq 2: .*hash does not match.*\. Run `gatehouse audit verify`/);
  });
});
