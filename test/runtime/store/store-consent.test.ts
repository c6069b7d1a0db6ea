// A repository's gatehouse.yaml names the team store, and an agent or a cloned repository can
// write that file: a store setting from it gets a password from this machine's environment only
// for the server this machine chose itself (GATEHOUSE_STORE). Against a real PostgreSQL server,
// and a fake one on loopback that asks for the password in clear, as a hostile server would.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStoreSetting, selectStore, type StoreSpec } from '../../../src/runtime/store/store-setting.js';
import { gatehouse, tempDir } from '../../support/cli.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

const project = (text: string): StoreSpec => {
  const r = parseStoreSetting(text, 'gatehouse.yaml: store', 'project');
  if (!r.ok) throw new Error(r.reason);
  return r.value;
};

describe('a project store that takes its password from the environment', () => {
  const named = project('postgres://gh@db.internal:5432/team?password_env=GATEHOUSE_PG_PASSWORD');

  it('is refused when this machine chose no store, or another server, user or database', () => {
    for (const env of [
      {},
      { GATEHOUSE_STORE: 'postgres://gh@elsewhere:5432/team?password_env=GATEHOUSE_PG_PASSWORD' },
      { GATEHOUSE_STORE: 'postgres://other@db.internal:5432/team' },
      { GATEHOUSE_STORE: 'postgres://gh@db.internal:5433/team' },
      { GATEHOUSE_STORE: 'postgres://gh@db.internal:5432/other' },
      { GATEHOUSE_STORE: 'file' },
      { GATEHOUSE_STORE: 'not a url' },
    ]) {
      const r = selectStore(named, env);
      expect(r.ok, JSON.stringify(env)).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/this machine has not chosen that server .*set GATEHOUSE_STORE to that URL.*pgpass/);
    }
  });

  it('is used as this machine names it when GATEHOUSE_STORE is the same server (host case and the default port aside)', () => {
    const r = selectStore(named, { GATEHOUSE_STORE: 'postgres://gh@DB.internal/team?password_env=MY_PG_PASSWORD&sslmode=require' });
    expect(r).toEqual({ ok: true, value: { kind: 'postgres', url: 'postgres://gh@DB.internal/team?sslmode=require', passwordEnv: 'MY_PG_PASSWORD' } });
  });

  it('without password_env (a pgpass file, matched by host) it needs no consent, and on the server this machine chose it is used as this machine says', () => {
    const pgpass = project('postgres://gh@db.internal:5432/team');
    expect(selectStore(pgpass, {})).toEqual({ ok: true, value: pgpass });
    expect(selectStore(pgpass, { GATEHOUSE_STORE: 'postgres://gh@db.internal/team?password_env=MY_PG_PASSWORD' })).toEqual({
      ok: true,
      value: { kind: 'postgres', url: 'postgres://gh@db.internal/team', passwordEnv: 'MY_PG_PASSWORD' },
    });
  });
});

/** A server that speaks just enough of the protocol to ask for the password in clear, and keeps what it is sent. */
function hostileServer(): Promise<{ server: Server; port: number; received: Buffer[] }> {
  const received: Buffer[] = [];
  const server = createServer((socket) => {
    let asked = false;
    socket.on('data', (b: Buffer) => {
      received.push(b);
      if (asked) return void socket.destroy();
      asked = true;
      // AuthenticationCleartextPassword: 'R', length 8, code 3.
      socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, received })));
}

describe('gatehouse run with a store named by the repository', { timeout: 60_000 }, () => {
  let real: TestPostgres;
  let hostile: Awaited<ReturnType<typeof hostileServer>>;

  beforeAll(async () => {
    real = await startPostgres();
    hostile = await hostileServer();
  });
  afterAll(() => {
    hostile?.server.close();
    real?.destroy();
  });

  function project(store: string): { worktree: string; home: string } {
    const root = tempDir('gh-consent-');
    const worktree = join(root, 'repo');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(worktree, 'gatehouse.yaml'), `store: ${store}\n`);
    return { worktree, home: join(root, 'home') };
  }

  it('never sends the password to a server only the repository named: run stops with a usage error and the server hears nothing', () => {
    const p = project(`postgres://gatehouse@127.0.0.1:${hostile.port}/team?password_env=GATEHOUSE_PG_PASSWORD`);
    const r = gatehouse(['run', '--agent', 'none', '--worktree', p.worktree, '--', 'true'], {
      env: { GATEHOUSE_HOME: p.home, GATEHOUSE_PG_PASSWORD: 'the-team-password', GATEHOUSE_STORE: `${real.url}?password_env=GATEHOUSE_PG_PASSWORD` },
    });
    expect(r.stderr).toContain('this machine has not chosen that server');
    expect(r.status).toBe(2);
    expect(Buffer.concat(hostile.received).toString('latin1')).not.toContain('the-team-password');
    expect(hostile.received).toEqual([]);
  });

  it('links to the server the repository names when this machine chose that same one', async () => {
    const p = project(`${real.url}?password_env=GATEHOUSE_REPO_NAMES_THIS`);
    const r = gatehouse(['run', '--agent', 'none', '--worktree', p.worktree, '--require', 'c=true', '--', 'true'], {
      env: { GATEHOUSE_HOME: p.home, [real.passwordEnv]: real.password, GATEHOUSE_STORE: `${real.url}?password_env=${real.passwordEnv}` },
    });
    expect(r.status, r.stderr).toBe(0);
    const pool = new pg.Pool({ connectionString: real.url.replace('gatehouse@', `gatehouse:${encodeURIComponent(real.password)}@`), max: 1 });
    try {
      expect((await pool.query('SELECT worktree FROM gh_sessions')).rows).toEqual([{ worktree: p.worktree }]);
    } finally {
      await pool.end();
    }
  });
});
