// A real PostgreSQL server for tests: its own cluster in a temp folder (initdb + pg_ctl),
// on a free loopback port, with password authentication. Run as the `postgres` user when
// the tests run as root (PostgreSQL refuses to run as root).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type PgStore } from '../../src/runtime/store/pg-connect.js';

/** Where Debian puts the server programs; PG_BIN overrides. */
function binDir(): string | null {
  if (process.env['PG_BIN'] !== undefined) return process.env['PG_BIN'];
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

export interface TestPostgres {
  /** A `postgres://` URL without the password (give it by `password_env`). */
  url: string;
  port: number;
  /** The password of user `gatehouse`. */
  password: string;
  /** The name of an environment variable set to the password in this process. */
  passwordEnv: string;
  /** Stops the server fast (connections are cut), as a crash or an outage would. */
  kill(): void;
  /** Starts it again on the same port with the same data. */
  start(): void;
  /** Stops it and removes its data. */
  destroy(): void;
}

let serial = 0;

/** Starts a fresh cluster with a database `gatehouse` owned by user `gatehouse`. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  if (bin === null) throw new Error('PostgreSQL server programs (initdb, pg_ctl) are not installed: apt-get install postgresql (.ci/run does)');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'gh-pg-'));
  const data = join(dir, 'data');
  const sock = join(dir, 'sock');
  const pwfile = join(dir, 'pw');
  const password = `pw-${process.pid}-${++serial}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  execFileSync('mkdir', ['-p', sock]);
  if (asRoot) {
    const pg = pgIds();
    chmodSync(dir, 0o755);
    for (const p of [dir, sock, pwfile]) chownSync(p, pg.uid, pg.gid);
  }
  const run = (prog: string, args: string[]): void => {
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, prog), ...args] : args;
    const r = spawnSync(asRoot ? 'runuser' : join(bin, prog), argv, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${prog} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'gatehouse', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const ctl = (args: string[]): void => run('pg_ctl', args);
  const startServer = (): void =>
    ctl(['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', '-o', `-p ${port} -k ${sock} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`, 'start']);
  startServer();
  const passwordEnv = `GH_TEST_PG_PASSWORD_${port}`;
  process.env[passwordEnv] = password;
  const url = `postgres://gatehouse@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    port,
    password,
    passwordEnv,
    kill: () => ctl(['-D', data, '-m', 'immediate', 'stop']),
    start: startServer,
    destroy: () => {
      if (stopped) return;
      stopped = true;
      try {
        ctl(['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // already stopped
      }
      delete process.env[passwordEnv];
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function pgIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh server and the team store opened on it (tables made), for a test file's beforeAll. */
export async function startPostgresStore(): Promise<{ pg: TestPostgres; store: PgStore }> {
  const pg = await startPostgres();
  const opened = await openStore({ kind: 'postgres', url: pg.url, passwordEnv: pg.passwordEnv });
  if (!opened.ok) {
    pg.destroy();
    throw new Error(opened.reason);
  }
  return { pg, store: opened.value };
}

/** Closes what {@link startPostgresStore} opened, whichever parts of it were made. */
export async function stopPostgresStore(pg: TestPostgres | undefined, store: PgStore | undefined): Promise<void> {
  await store?.close();
  pg?.destroy();
}
