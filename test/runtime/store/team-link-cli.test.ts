// Two "machines" (separate processes, each with its own GATEHOUSE_HOME) run sessions against one real
// PostgreSQL server; `serve --store` lists both. The store down at start: a clear refusal (exit 69), or
// with --store-fallback file a warning, a session that runs, and a row once the store is back.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, gatehouse, tempDir } from '../../support/cli.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';
import { CHROMIUM, launchChromium, until } from '../../web/support.js';

let server: TestPostgres;
let pool: pg.Pool;
let setting: string;
const children: ChildProcess[] = [];

/** A machine: its own state base, and a project folder of its own. */
function machine(name: string): { home: string; worktree: string; env: NodeJS.ProcessEnv } {
  const root = tempDir(`gh-team-${name}-`);
  const home = join(root, 'home');
  const worktree = join(root, name);
  mkdirSync(worktree, { recursive: true });
  return { home, worktree, env: { GATEHOUSE_HOME: home, GATEHOUSE_STORE: setting } };
}

/** Runs `gatehouse` as a child, resolving when it exits; `onStderr` sees its stderr as it comes. */
function runAsync(args: string[], env: NodeJS.ProcessEnv, onStderr: (all: string) => void = () => {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      onStderr(stderr);
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Starts `gatehouse serve` and resolves with its dashboard URL and token once it prints them. */
function serve(args: string[], env: NodeJS.ProcessEnv): Promise<{ base: string; token: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /dashboard: (http:\/\/[^/\s]+)\/\?token=([0-9a-f]+)/.exec(out);
      if (m) resolve({ base: m[1]!, token: m[2]!, child });
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (status) => reject(new Error(`serve exited ${status}: ${err}`)));
  });
}

async function rows(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  return (await pool.query(sql, params)).rows as Record<string, unknown>[];
}

beforeAll(async () => {
  server = await startPostgres();
  setting = `${server.url}?password_env=${server.passwordEnv}`;
  pool = new pg.Pool({ connectionString: server.url.replace('gatehouse@', `gatehouse:${encodeURIComponent(server.password)}@`), max: 2 });
  pool.on('error', () => {});
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await pool?.end();
  server?.destroy();
});

describe('team link from the CLI, against a real PostgreSQL server', { timeout: 60_000 }, () => {
  it('two machines run sessions; serve --store lists both with host, user, agent, worktree and verdict', async () => {
    const a = machine('alpha');
    const b = machine('beta');
    const ra = gatehouse(['run', '--agent', 'none', '--worktree', a.worktree, '--require', 'check=true', '--', 'true'], { env: a.env });
    expect(ra.status, ra.stderr).toBe(0);
    const rb = gatehouse(['run', '--agent', 'none', '--worktree', b.worktree, '--require', 'check=false', '--', 'true'], { env: b.env });
    expect(rb.status, rb.stderr).toBe(1);
    const ids = [a, b].map((m) => readFileSync(join(m.home, 'machine-id'), 'utf8').trim());
    expect(ids[0]).not.toBe(ids[1]);

    // The dashboard runs on a third machine that has run nothing itself.
    const c = machine('gamma');
    const s = await serve(['--store', setting, '--project', c.worktree], { GATEHOUSE_HOME: c.home });
    const unauth = await fetch(`${s.base}/api/team/sessions`);
    expect(unauth.status).toBe(401);
    const res = await fetch(`${s.base}/api/team/sessions`, { headers: { authorization: `Bearer ${s.token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      machine_id: string;
      sessions: { machine_id: string; host: string; user: string; agent: string; worktree: string; verdict: string; status: string; ended_at: string | null; evidence_id: string | null }[];
    };
    const byMachine = new Map(body.sessions.map((x) => [x.machine_id, x]));
    expect(byMachine.get(ids[0]!)).toMatchObject({ agent: 'none', worktree: a.worktree, verdict: 'passed', status: 'ended' });
    expect(byMachine.get(ids[1]!)).toMatchObject({ agent: 'none', worktree: b.worktree, verdict: 'failed', status: 'ended' });
    for (const x of [byMachine.get(ids[0]!)!, byMachine.get(ids[1]!)!]) {
      expect(x.host.length).toBeGreaterThan(0);
      expect(x.user.length).toBeGreaterThan(0);
      expect(x.ended_at).not.toBeNull();
    }
    expect(body.machine_id).not.toBe(ids[0]);
    // A page from another site is refused, whatever it carries.
    const cross = await fetch(`${s.base}/api/team/sessions`, { headers: { authorization: `Bearer ${s.token}`, origin: 'https://evil.example' } });
    expect(cross.status).toBe(403);
    // The team queue is wired, and nothing waits.
    const approvals = await fetch(`${s.base}/api/team/approvals`, { headers: { authorization: `Bearer ${s.token}` } });
    expect(await approvals.json()).toEqual({ wired: true, pending: [] });

    // The dashboard's team panel shows both machines' sessions: each as its record, no terminal.
    if (existsSync(CHROMIUM)) {
      const profile = tempDir('gh-chromium-');
      const context = await launchChromium(profile);
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(`${s.base}/?token=${s.token}`);
        await until(async () => (await page.locator('#team-panel .team-session').count()) >= 2, 'the team panel to list both sessions');
        expect(await page.locator('#team-panel').isVisible()).toBe(true);
        const shown = await page.locator('#team-panel .team-session').allTextContents();
        for (const wt of [a.worktree, b.worktree]) expect(shown.some((t) => t.includes(wt) && t.includes('record only') && t.includes('none'))).toBe(true);
        expect(await page.locator('#team-panel [data-verdict="passed"]').count()).toBeGreaterThanOrEqual(1);
        expect(await page.locator('#team-panel [data-verdict="failed"]').count()).toBeGreaterThanOrEqual(1);
      } finally {
        await context.close();
      }
    }
    s.child.kill('SIGTERM');
  });

  it("the agent's environment carries neither the store's password nor its variable", () => {
    const a = machine('env');
    const out = join(a.worktree, '..', 'env.txt');
    const r = gatehouse(['run', '--agent', 'none', '--worktree', a.worktree, '--', 'sh', '-c', `env > ${out}`], { env: a.env });
    expect(r.status, r.stderr).toBe(0);
    const env = readFileSync(out, 'utf8');
    expect(env).not.toContain(server.password);
    expect(env).not.toContain(`${server.passwordEnv}=`);
  });

  it('an evidence bundle fetched from the store verifies offline with the machine key, and a changed one does not', async () => {
    const a = machine('evidence');
    const r = gatehouse(['run', '--agent', 'none', '--worktree', a.worktree, '--require', 'check=true', '--json', '--', 'true'], { env: a.env });
    expect(r.status, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { session_id: string }).session_id;
    const row = await rows('SELECT evidence_id FROM gh_sessions WHERE session_id = $1', [id]);
    const evidenceId = row[0]?.evidence_id as string;
    expect(evidenceId).toMatch(/^ev-/);
    const key = JSON.parse(gatehouse(['keys', 'show', '--json', '--worktree', a.worktree], { env: a.env }).stdout) as { public_key_pem: string };
    const pem = join(a.worktree, '..', 'pub.pem');
    writeFileSync(pem, key.public_key_pem);
    // Fetched on another machine, which has none of the first one's files.
    const other = machine('verifier');
    const file = join(other.worktree, 'fetched.json');
    const fetched = gatehouse(['evidence', 'fetch', evidenceId, '--store', setting, '--out', file], { env: { GATEHOUSE_HOME: other.home }, cwd: other.worktree });
    expect(fetched.status, fetched.stderr).toBe(0);
    const verified = gatehouse(['evidence', 'verify', file, '--key', pem], { env: { GATEHOUSE_HOME: other.home }, cwd: other.worktree });
    expect(verified.stdout).toContain('verified');
    expect(verified.status).toBe(0);

    await pool.query(`UPDATE gh_evidence SET envelope = jsonb_set(envelope, '{payload}', to_jsonb(encode(convert_to('{}', 'UTF8'), 'base64'))) WHERE id = $1`, [evidenceId]);
    const refetched = gatehouse(['evidence', 'fetch', evidenceId, '--store', setting, '--out', file], { env: { GATEHOUSE_HOME: other.home }, cwd: other.worktree });
    expect(refetched.status, refetched.stderr).toBe(0);
    const mismatch = gatehouse(['evidence', 'verify', file, '--key', pem], { env: { GATEHOUSE_HOME: other.home }, cwd: other.worktree });
    expect(mismatch.status).toBe(2);
  });

  it('with the store down, run refuses with exit 69, names the store and what to do, and starts nothing', () => {
    const a = machine('down');
    server.kill();
    try {
      const r = gatehouse(['run', '--agent', 'none', '--worktree', a.worktree, '--', 'true'], { env: a.env });
      expect(r.status).toBe(69);
      expect(r.stderr).toContain(`Cannot use the team store postgres://gatehouse@127.0.0.1:${server.port}/postgres`);
      expect(r.stderr).toContain('--store-fallback file');
      expect(r.stderr).not.toContain(server.password);
      expect(existsSync(join(a.home, 'projects'))).toBe(false);
    } finally {
      server.start();
    }
  });

  it('with --store-fallback file the session runs on the file store, and its row appears once the store is back', async () => {
    const a = machine('fallback');
    const go = join(a.worktree, '..', 'go');
    server.kill();
    let warned!: () => void;
    const sawWarning = new Promise<void>((resolve) => (warned = resolve));
    const running = runAsync(
      ['run', '--agent', 'none', '--store-fallback', 'file', '--worktree', a.worktree, '--json', '--', 'sh', '-c', `while [ ! -e ${go} ]; do sleep 0.05; done`],
      a.env,
      (err) => {
        if (err.includes("Running on this machine's file store")) warned();
      },
    );
    await sawWarning;
    server.start();
    writeFileSync(go, '');
    const r = await running;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Cannot use the team store postgres://gatehouse@127.0.0.1:${server.port}/postgres`);
    const id = (JSON.parse(r.stdout) as { session_id: string }).session_id;
    const row = await rows('SELECT verdict, status FROM gh_sessions WHERE session_id = $1', [id]);
    expect(row).toEqual([{ verdict: 'passed', status: 'ended' }]);
  });
  it('serve --all links only the projects that keep their records in that store: one whose store: says file is left on its machine', async () => {
    const m = machine('many');
    const kept = join(m.worktree, '..', 'kept-local');
    mkdirSync(kept, { recursive: true });
    writeFileSync(join(kept, 'gatehouse.yaml'), 'store: file\n');
    for (const wt of [m.worktree, kept]) {
      const r = gatehouse(['run', '--agent', 'none', '--worktree', wt, '--store-fallback', 'file', '--require', 'c=true', '--', 'true'], {
        env: { ...m.env, GATEHOUSE_STORE: 'postgres://gatehouse@127.0.0.1:1/postgres' },
      });
      expect(r.status, r.stderr).toBe(0);
    }
    const machineId = readFileSync(join(m.home, 'machine-id'), 'utf8').trim();
    expect(await rows('SELECT worktree FROM gh_sessions WHERE machine_id = $1', [machineId])).toEqual([]);
    // The sessions ran while the store was elsewhere; serve --all now links what chose this store.
    let out = '';
    const s = await new Promise<{ base: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'serve', '--all', '--port', '0'], { env: { ...process.env, ...m.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      child.stdout.on('data', (b: Buffer) => {
        const found = /dashboard: (http:\/\/[^/\s]+)/.exec(b.toString());
        if (found) resolve({ base: found[1]! });
      });
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      child.on('close', (status) => reject(new Error(`serve --all exited ${status}: ${out}`)));
    });
    expect(s.base).toMatch(/^http/);
    for (let i = 0; i < 100 && (await rows('SELECT 1 FROM gh_sessions WHERE machine_id = $1', [machineId])).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await rows('SELECT worktree FROM gh_sessions WHERE machine_id = $1', [machineId])).map((r) => r.worktree)).toEqual([m.worktree]);
    expect(out).toContain(`${kept} is not linked: its own store: setting names file`);
  });
});
