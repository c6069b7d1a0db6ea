// The dashboard of `serve --all`: a project switcher in the top bar lists every project, and
// switching loads the page for that project (its own approvals, over `/ws?project=`). Debian's
// Chromium against the real gateway serving two real project folders.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProject } from '../../src/gateway/projects/open-project.js';
import { ProjectPool } from '../../src/gateway/projects/project-pool.js';
import type { Gateway } from '../../src/gateway/server.js';
import { startGateway } from '../../src/gateway/server.js';
import { addWebRoutes } from '../../src/gateway/web-routes.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { writeProjectRecord } from '../../src/runtime/project-record.js';
import { projectKey } from '../../src/runtime/state-base.js';
import { tempDir } from '../support/cli.js';
import { CHROMIUM, launchChromium } from './support.js';

const WEB_DIR = resolve('dist/web');
const WAIT_MS = 20_000;
const ACCESS_TOKEN = 'f'.repeat(64);

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function project(base: string, name: string): { key: string; queue: ApprovalQueue } {
  const root = join(tempDir('gh-switch-'), name);
  mkdirSync(root);
  const state = join(base, 'projects', projectKey(root));
  writeProjectRecord(state, root);
  return { key: projectKey(root), queue: new ApprovalQueue(state) };
}

let gw: Gateway;
let context: BrowserContext;
let page: Page;
let profile: string;
const errors: string[] = [];

describe.skipIf(!existsSync(CHROMIUM))('dashboard project switcher', { timeout: 90_000 }, () => {
  let alpha: { key: string; queue: ApprovalQueue };
  let beta: { key: string; queue: ApprovalQueue };

  beforeAll(async () => {
    if (!existsSync(join(WEB_DIR, 'app.js'))) execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    const base = tempDir('gh-switch-base-');
    alpha = project(base, 'alpha');
    beta = project(base, 'beta');
    alpha.queue.enqueue({ session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'Bash: alpha-only call', ttlSeconds: 600 });
    beta.queue.enqueue({ session_id: 's2', agent: 'claude', tool: 'Bash', summary: 'Bash: beta-only call', ttlSeconds: 600 });
    gw = await startGateway({
      projectState: base,
      host: '127.0.0.1',
      port: 0,
      accessToken: ACCESS_TOKEN,
      operator: 'ana',
      tokens: [],
      log: () => {},
      projects: ({ credentials, hosts, log }) =>
        new ProjectPool({ base, log, open: (e) => openProject(e, { credentials, hosts, env: process.env, log, publicUrl: null, nodePath: process.execPath, hookBundle: 'dist/hook/hook.js' }) }),
      routes: (router) => void addWebRoutes(router, { webDir: WEB_DIR, accessToken: ACCESS_TOKEN }),
    });
    profile = mkdtempSync(join(tmpdir(), 'gh-chromium-'));
    context = await launchChromium(profile);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${gw.url}/?token=${ACCESS_TOKEN}`);
  });

  afterAll(async () => {
    await context?.close();
    await gw?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  const cards = async (): Promise<string> => (await page.locator('#approvals').textContent()) ?? '';
  const shownProject = (): string | null => new URL(page.url()).searchParams.get('project');

  it('opens the first project, lists both in the switcher, and shows only that project’s approvals', async () => {
    await until(async () => shownProject() !== null && (await page.locator('#conn[data-state="ready"]').count()) === 1, 'the page to open a project and connect');
    const first = [alpha.key, beta.key].sort()[0];
    expect(shownProject()).toBe(first);
    // The switcher fills from its own request, which may answer after the socket is up.
    const select = page.locator('#project');
    await until(() => select.isVisible(), 'the project switcher to show');
    expect(await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual([alpha.key, beta.key].sort());
    const mine = first === alpha.key ? 'alpha-only call' : 'beta-only call';
    const theirs = first === alpha.key ? 'beta-only call' : 'alpha-only call';
    await until(async () => (await cards()).includes(mine), `${mine} to show`);
    expect(await cards()).not.toContain(theirs);
  });

  it('switches to the other project, keeps it across a reload, and shows its own approval', async () => {
    const other = shownProject() === alpha.key ? beta : alpha;
    const want = other === alpha ? 'alpha-only call' : 'beta-only call';
    const not = other === alpha ? 'beta-only call' : 'alpha-only call';
    await page.locator('#project').selectOption(other.key);
    await until(async () => shownProject() === other.key && (await cards()).includes(want), `the page for ${other.key}`);
    expect(await cards()).not.toContain(not);
    await page.reload();
    await until(async () => (await page.locator('#conn[data-state="ready"]').count()) === 1 && (await cards()).includes(want), 'the reloaded page');
    expect(shownProject()).toBe(other.key);
    // The switcher fills from its own request after the reload, which may answer after the socket is up.
    await until(async () => (await page.locator('#project').inputValue()) === other.key, `the switcher to show ${other.key}`);
    // A new call in this project shows up live; the audit line asks this project's log.
    other.queue.enqueue({ session_id: 's3', agent: 'claude', tool: 'Bash', summary: 'Bash: a later call', ttlSeconds: 600 });
    await until(async () => (await cards()).includes('a later call'), 'the new call');
    await until(async () => ((await page.locator('#audit').textContent()) ?? '').includes('audit:') && !((await page.locator('#audit').textContent()) ?? '').includes('unavailable'), 'the audit line');
  });

  it('ran without page errors', () => {
    expect(errors).toEqual([]);
  });
});
