// A throwaway PostgreSQL server for the team benchmarks, started the way the tests start theirs
// (test/support/postgres.ts): initdb + pg_ctl in a temp folder, a free loopback port, password
// authentication, and the `postgres` user when run as root.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './common.mjs';

/** Where Debian puts the server programs; PG_BIN overrides. */
function binDir() {
  if (process.env.PG_BIN !== undefined) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = srv.address().port;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a cluster; returns `{ url, passwordEnv, stop }` (the password is set in this process's env under passwordEnv). */
export async function startBenchPostgres() {
  const bin = binDir();
  if (bin === null) throw new Error('PostgreSQL server programs (initdb, pg_ctl) are not installed: apt-get install postgresql');
  const asRoot = process.getuid?.() === 0;
  // The cluster lives in a folder the suite removes at the end, like every other temp folder.
  const dir = tempDir('gh-bench-pg-');
  const data = join(dir, 'data');
  const sock = join(dir, 'sock');
  const pwfile = join(dir, 'pw');
  const password = `pw-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  mkdirSync(sock);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chmodSync(dir, 0o755);
    for (const p of [dir, sock, pwfile]) chownSync(p, uid, gid);
  }
  const run = (prog, args) => {
    const r = spawnSync(asRoot ? 'runuser' : join(bin, prog), asRoot ? ['-u', 'postgres', '--', join(bin, prog), ...args] : args, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${prog} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'gatehouse', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  // Durable settings (fsync on) as a real team database would run: the numbers include the commit's flush.
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', '-o', `-p ${port} -k ${sock} -c listen_addresses=127.0.0.1`, 'start']);
  const passwordEnv = `GH_BENCH_PG_PASSWORD_${port}`;
  process.env[passwordEnv] = password;
  return {
    url: `postgres://gatehouse@127.0.0.1:${port}/postgres`,
    passwordEnv,
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // already stopped
      }
      delete process.env[passwordEnv];
    },
  };
}
