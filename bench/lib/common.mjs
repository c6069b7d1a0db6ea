// What every benchmark shares: the repo's paths, temp folders and child processes that are
// always cleaned up (also on failure and on Ctrl-C), sessions started the way an operator
// starts them, the supervisor (`gatehouse serve`), and a small HTTP client.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'dist', 'cli.js');
export const LIB_URL = pathToFileURL(join(ROOT, 'dist', 'index.js')).href;
export const NODE = process.execPath;

const dirs = new Set();
const children = new Set();

/** A fresh temp folder (real path), removed by `cleanup()`. */
export function tempDir(prefix) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.add(dir);
  return dir;
}

/** Tracks a child process so that `cleanup()` kills it if it is still running. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * Pids of processes whose command line names one of our temp folders: hooks the agent's
 * `/bin/sh -c` started (dash does not exec, so killing the shell leaves them), supervisors.
 * The folder names are random, so only processes this run started can match.
 */
function stragglers() {
  if (dirs.size === 0) return [];
  return processes()
    .filter((p) => [...dirs].some((d) => p.args.some((a) => a.includes(d))))
    .map((p) => p.pid);
}

/** Every other process's pid and arguments, from /proc (none without it). */
export function processes() {
  if (!existsSync('/proc')) return [];
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      out.push({ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Kills every tracked child and any process left in our temp folders; the folders stay. The suite
 * calls it after each group, so that nothing a group left running (a hook still waiting on an
 * approval after its shell was killed) takes CPU from a later group's measurements.
 */
export function reap() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const pid of stragglers()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** {@link reap}, then removes the folders; synchronous, safe to call twice. */
export function cleanup() {
  reap();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => {
    cleanup();
    process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[sig] ?? 0));
  });
}
process.once('exit', cleanup);

/** `gatehouse …` run to completion; throws with its stderr on a non-zero exit. */
export function gatehouse(args, opts = {}) {
  const r = spawnSync(NODE, [CLI, ...args], { encoding: 'utf8', timeout: 120_000, ...opts });
  if (r.status !== 0) throw new Error(`gatehouse ${args.slice(0, 2).join(' ')} exited ${r.status}: ${(r.stderr || r.stdout || String(r.error ?? '')).trim()}`);
  return r.stdout;
}

let transportHelp = null;
/** True once `session start` has the `--transport` option (it is being built). */
export function hasTransportOption() {
  transportHelp ??= spawnSync(NODE, [CLI, 'session', 'start', '--help'], { encoding: 'utf8' }).stdout.includes('--transport');
  return transportHelp;
}

/** A small git project (a realistic worktree): `src/`, a README and one commit. */
export function makeWorktree(dir) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# bench project\n');
  writeFileSync(join(dir, 'src', 'index.ts'), 'export const answer = 42;\n');
  writeFileSync(join(dir, 'package.json'), '{ "name": "bench-project", "private": true }\n');
  try {
    const git = (...a) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...a], { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
  } catch {
    // no git: the session records a content manifest instead, which is fine for the benchmark
  }
  return dir;
}

/**
 * Starts a Claude Code session the way an operator does and returns the hook commands it
 * rendered into `<worktree>/.claude/settings.local.json`, exactly as the agent will run them.
 */
export function startSession({ worktree, stateDir, id, allow = ['src/**'], require = [], transport = null, extra = [] }) {
  const args = ['session', 'start', '--agent', 'claude', '--worktree', worktree, '--state-dir', stateDir, '--id', id];
  for (const a of allow) args.push('--allow', a);
  for (const r of require) args.push('--require', r);
  if (transport) args.push('--transport', transport);
  gatehouse([...args, ...extra]);
  return renderedHooks(worktree);
}

/** The Gatehouse hook command per event in the rendered settings (the entry that runs our hook). */
function renderedHooks(worktree) {
  const settings = JSON.parse(readFileSync(join(worktree, '.claude', 'settings.local.json'), 'utf8'));
  const out = {};
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    for (const g of groups) {
      for (const h of g.hooks ?? []) {
        if (h.type === 'command' && /dist\/hook|gatehouse|warm\.sh/.test(h.command)) out[event] ??= { command: h.command, matcher: g.matcher ?? '', timeout: h.timeout };
      }
    }
  }
  if (!out.PreToolUse || !out.Stop) throw new Error(`no Gatehouse PreToolUse/Stop hook rendered in ${worktree}/.claude/settings.local.json`);
  return out;
}

/** Single-quotes a word for /bin/sh. */
export const shq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/** Runs `command` as Claude Code runs a command hook: `/bin/sh -c`, the JSON on stdin; wall time in ms. */
export function runHookCommand(command, input, { cwd, env = process.env, timeout = 120_000 } = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/bin/sh', ['-c', command], { cwd, env, input, encoding: 'utf8', timeout });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw r.error;
  return { ms, status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Starts `gatehouse serve` for a worktree on a free port; resolves once it printed its
 * dashboard URL. `stop()` sends SIGTERM and waits (SIGKILL after 5 s). `args` are more flags
 * for `serve`, `env` its environment.
 */
export async function startSupervisor(worktree, stateDir, { args = [], env = process.env } = {}) {
  const child = track(spawn(NODE, [CLI, 'serve', '--worktree', worktree, '--state-dir', stateDir, '--port', '0', ...args], { cwd: worktree, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gatehouse serve printed no dashboard URL within 20 s: ${err.trim()}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /dashboard: (http:\/\/[^/\s]+)\/\?token=(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ origin: m[1], token: m[2] });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gatehouse serve exited ${code}: ${err.trim()}`));
    });
  });
  child.stdout.resume();
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return { ...url, port: Number(new URL(url.origin).port), child, stop, stderr: () => err };
}

/** A loopback HTTP request; resolves `{ status, json, text }`. */
export function http(method, url, { body, headers = {}, timeout = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        timeout,
        headers: { host: u.host, ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}), ...headers },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode, json, text });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${u.pathname} timed out`)));
    req.on('error', reject);
    req.end(data ?? undefined);
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `promise`, or `onTimeout()` after `ms`; the timer never outlives the race (nothing keeps the process up). */
export async function within(promise, ms, onTimeout) {
  let timer;
  try {
    return await Promise.race([
      promise,
      new Promise(
        (resolve, reject) =>
          (timer = setTimeout(() => {
            try {
              resolve(onTimeout());
            } catch (err) {
              reject(err);
            }
          }, ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
