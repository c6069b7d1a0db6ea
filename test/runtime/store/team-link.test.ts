// The link runner and the session registry in this process, against a real PostgreSQL server: local
// session folders and bundles (made by the real CLI on the file store) are forwarded once each, across
// restarts of the link and outages of the database, and a store down at start is refused or, with the
// file fallback, caught up later.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src/runtime/session-store.js';
import { projectKey } from '../../../src/runtime/state-base.js';
import { thisMachine } from '../../../src/runtime/store/machine.js';
import type { PostgresSpec } from '../../../src/runtime/store/store-setting.js';
import { startTeamLink, type LinkProject, type StoreFallback } from '../../../src/runtime/store/team-link.js';
import { gatehouse, tempDir } from '../../support/cli.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

let server: TestPostgres;
let pool: pg.Pool;
let spec: PostgresSpec;

/** A project on the file store, with `n` finished sessions run by the real CLI. */
function project(n: number): { project: LinkProject; home: string; run: () => string } {
  const root = tempDir('gh-link-');
  const home = join(root, 'home');
  const worktree = join(root, 'wt');
  mkdirSync(worktree);
  const projectState = join(root, 'state');
  const run = (): string => {
    const r = gatehouse(['run', '--agent', 'none', '--worktree', worktree, '--state-dir', projectState, '--require', 'check=true', '--json', '--', 'true'], {
      env: { GATEHOUSE_HOME: home, GATEHOUSE_STORE: 'file' },
    });
    if (r.status !== 0) throw new Error(r.stderr);
    return (JSON.parse(r.stdout) as { session_id: string }).session_id;
  };
  for (let i = 0; i < n; i++) run();
  return { project: { projectState, projectKey: projectKey(worktree), worktree }, home, run };
}

async function count(table: string, machineId: string): Promise<number> {
  const r = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE machine_id = $1`, [machineId]);
  return Number(r.rows[0]?.n);
}

function link(p: LinkProject, home: string, fallback: StoreFallback, warnings: string[]) {
  return startTeamLink({ spec, projects: [p], env: { [server.passwordEnv]: server.password }, machine: thisMachine({ GATEHOUSE_HOME: home }), warn: (m) => warnings.push(m), fallback });
}

beforeAll(async () => {
  server = await startPostgres();
  spec = { kind: 'postgres', url: server.url, passwordEnv: server.passwordEnv };
  pool = new pg.Pool({ connectionString: server.url.replace('gatehouse@', `gatehouse:${encodeURIComponent(server.password)}@`), max: 2 });
  pool.on('error', () => {});
});

afterAll(async () => {
  await pool?.end();
  server?.destroy();
});

beforeEach(() => {
  // Every test leaves the server running, whatever it did to it.
  try {
    server.start();
  } catch {
    // already running
  }
});

describe('team link', { timeout: 60_000 }, () => {
  it('forwards each session and bundle once, however often it passes and however often the link restarts', async () => {
    const { project: p, home } = project(2);
    const machine = thisMachine({ GATEHOUSE_HOME: home });
    for (let round = 0; round < 2; round++) {
      const warnings: string[] = [];
      const started = await link(p, home, null, warnings);
      if (!started.ok) throw new Error(started.reason);
      expect(await started.value.flush(10_000)).toBe(true);
      expect(await started.value.flush(10_000)).toBe(true);
      await started.value.stop();
      expect(warnings).toEqual([]);
    }
    expect(await count('gh_sessions', machine.id)).toBe(2);
    // Each passed session sealed its end-of-session verdict.
    expect(await count('gh_evidence', machine.id)).toBeGreaterThanOrEqual(2);
    const ev = await pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM gh_evidence e WHERE machine_id = $1 AND NOT EXISTS (SELECT 1 FROM unnest(e.blob_digests) d WHERE NOT EXISTS (SELECT 1 FROM gh_evidence_blobs b WHERE b.digest = d))',
      [machine.id],
    );
    expect(Number(ev.rows[0]?.n)).toBe(await count('gh_evidence', machine.id));
    const rows = await pool.query('SELECT verdict, status, sandboxed, host, os_user FROM gh_sessions WHERE machine_id = $1', [machine.id]);
    for (const r of rows.rows) expect(r).toMatchObject({ verdict: 'passed', status: 'ended', sandboxed: false, host: machine.host, os_user: machine.user });
  });

  it('while the database is down, flush says so and nothing is lost; once it is back, what was recorded meanwhile arrives once', async () => {
    const { project: p, home, run } = project(1);
    const machine = thisMachine({ GATEHOUSE_HOME: home });
    const warnings: string[] = [];
    const started = await link(p, home, null, warnings);
    if (!started.ok) throw new Error(started.reason);
    const l = started.value;
    expect(await l.flush(10_000)).toBe(true);
    server.kill();
    const during = run();
    expect(await l.flush(10_000)).toBe(false);
    expect(warnings.some((w) => w.includes('cannot be reached'))).toBe(true);
    server.start();
    expect(await l.flush(10_000)).toBe(true);
    await l.stop();
    expect(await count('gh_sessions', machine.id)).toBe(2);
    const r = await pool.query('SELECT status FROM gh_sessions WHERE machine_id = $1 AND session_id = $2', [machine.id, during]);
    expect(r.rows).toEqual([{ status: 'ended' }]);
  });

  it('a row the store refuses is tried again on the next pass, and a NUL planted in meta.json does not keep a session out', async () => {
    const { project: p, home, run } = project(1);
    const machine = thisMachine({ GATEHOUSE_HOME: home });
    // The agent can write meta.json; a NUL would make PostgreSQL refuse the whole row.
    const planted = run();
    const meta = new SessionStore(p.projectState, planted).path('meta');
    const m = JSON.parse(readFileSync(meta, 'utf8')) as Record<string, unknown>;
    writeFileSync(meta, JSON.stringify({ ...m, agent: 'no\u0000ne', worktree: `${String(m.worktree)}\u0000` }));
    // The store refuses one session's row for a while (a real refusal: a constraint the test adds and drops).
    const refusedId = run();
    await pool.query(`ALTER TABLE gh_sessions ADD CONSTRAINT refuse_one CHECK (session_id <> '${refusedId}')`);
    const warnings: string[] = [];
    try {
      const started = await link(p, home, null, warnings);
      if (!started.ok) throw new Error(started.reason);
      expect(await started.value.flush(10_000)).toBe(true);
      expect(warnings.some((w) => w.includes(`session ${refusedId} could not be written`))).toBe(true);
      expect(await count('gh_sessions', machine.id)).toBe(2);
      await pool.query('ALTER TABLE gh_sessions DROP CONSTRAINT refuse_one');
      expect(await started.value.flush(10_000)).toBe(true);
      await started.value.stop();
    } finally {
      await pool.query('ALTER TABLE gh_sessions DROP CONSTRAINT IF EXISTS refuse_one');
    }
    expect(await count('gh_sessions', machine.id)).toBe(3);
    const r = await pool.query<{ agent: string; worktree: string }>('SELECT agent, worktree FROM gh_sessions WHERE machine_id = $1 AND session_id = $2', [machine.id, planted]);
    expect(r.rows).toEqual([{ agent: 'no\uFFFDne', worktree: `${String(m.worktree)}\uFFFD` }]);
  });

  it('a store down at start is a failure that names it, unless the file fallback is chosen; then it catches up when the store answers', async () => {
    const { project: p, home } = project(1);
    const machine = thisMachine({ GATEHOUSE_HOME: home });
    server.kill();
    const refused = await link(p, home, null, []);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.reason).toContain(`Cannot use the team store postgres://gatehouse@127.0.0.1:${server.port}/postgres`);
    const warnings: string[] = [];
    const fallback = await link(p, home, 'file', warnings);
    if (!fallback.ok) throw new Error(fallback.reason);
    expect(fallback.value.store()).toBeNull();
    expect(warnings.join('\n')).toContain("Running on this machine's file store");
    expect(await fallback.value.flush(10_000)).toBe(false);
    server.start();
    expect(await fallback.value.flush(10_000)).toBe(true);
    expect(fallback.value.store()).not.toBeNull();
    await fallback.value.stop();
    expect(await count('gh_sessions', machine.id)).toBe(1);
  });
});
