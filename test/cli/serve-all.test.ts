// `gatehouse serve --all` end to end with real processes: one supervisor for every project under
// GATEHOUSE_HOME; sessions started with --transport auto in each project send their hook calls to it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { projectKey } from '../../src/runtime/state-base.js';
import { CLI, gatehouse, tempDir } from '../support/cli.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A git worktree with a src folder. */
function repo(name: string): string {
  const root = join(tempDir('gh-all-'), name);
  mkdirSync(join(root, 'src'), { recursive: true });
  spawnSync('git', ['init', '-q', root]);
  return root;
}

/** Starts `gatehouse serve` with `args` in `cwd`; resolves with its first line and dashboard URL. */
async function serve(home: string, args: string[], cwd = process.cwd()): Promise<{ child: ChildProcess; first: string; url: URL }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { cwd, env: { ...process.env, GATEHOUSE_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /dashboard: (\S+)/.exec(out);
      if (m) resolve({ child, first: out.split('\n')[0] ?? '', url: new URL(m[1]!) });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

function start(home: string, root: string, id: string): { status: number | null; stdout: string; stderr: string } {
  return gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--id', id, '--allow', 'src/**', '--transport', 'auto', '--json'], { env: { GATEHOUSE_HOME: home } });
}

function renderedPreTool(root: string, id: string): string {
  const settings = JSON.parse(readFileSync(join(root, '.claude', 'settings.local.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  const cmd = settings.hooks.PreToolUse!.flatMap((g) => g.hooks.map((h) => h.command)).find((c) => c.includes(` ${id} `));
  if (cmd === undefined) throw new Error(`no PreToolUse hook for ${id}`);
  return cmd;
}

function runHook(root: string, command: string, file: string): { status: number | null; stderr: string } {
  const payload = JSON.stringify({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, file), content: 'v' } });
  const r = spawnSync('/bin/sh', ['-c', command], { cwd: root, input: payload, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

async function warmCalls(url: URL, key: string): Promise<number> {
  const r = await fetch(new URL(`/api/hooks/stats?project=${key}`, url), { headers: { authorization: `Bearer ${url.searchParams.get('token') ?? ''}` } });
  return ((await r.json()) as { samples_us: number[] }).samples_us.length;
}

const exited = (c: ChildProcess): Promise<number | null> => new Promise((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

describe('gatehouse serve --all', () => {
  it("decides each project's warm hook calls, for a project known at start and one created after", { timeout: 90_000 }, async () => {
    const home = tempDir('gh-home-');
    const a = repo('alpha');
    const b = repo('beta');
    expect(start(home, a, 'a1').status).toBe(0);
    const { child, first, url } = await serve(home, ['--all']);
    expect(first).toContain(`gatehouse supervisor for all projects in ${home}`);
    // beta's state folder appears only now, after serve started.
    const sb = start(home, b, 'b1');
    expect(sb.status).toBe(0);
    expect(start(home, a, 'a2').status).toBe(0);
    for (const [root, id] of [
      [a, 'a2'],
      [b, 'b1'],
    ] as const) {
      const key = projectKey(root);
      const meta = JSON.parse(readFileSync(join(home, 'projects', key, 'sessions', id, 'meta.json'), 'utf8')) as { transport: unknown };
      expect(meta.transport).toEqual({ kind: 'warm', port: Number(url.port), supervisor_pid: child.pid, project: key });
      const cmd = renderedPreTool(root, id);
      expect(cmd).toContain('warm.sh');
      expect(cmd).toContain(` ${key} -- `);
      const before = await warmCalls(url, key);
      expect(runHook(root, cmd, 'src/ok.ts')).toEqual({ status: 0, stderr: '' });
      const refused = runHook(root, cmd, 'package.json');
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('package.json is outside');
      // The supervisor decided both, under this project's key.
      expect(await warmCalls(url, key)).toBe(before + 2);
    }
  });

  it("ends each project's sessions still running in a terminal when it stops: their hooks are removed", { timeout: 60_000 }, async () => {
    const home = tempDir('gh-home-');
    const a = repo('alpha');
    expect(start(home, a, 'a1').status).toBe(0);
    expect(gatehouse(['session', 'end', 'a1', '--worktree', a], { env: { GATEHOUSE_HOME: home } }).status).toBe(0);
    const all = await serve(home, ['--all']);
    const cookie = (await fetch(all.url, { redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0]!;
    const ws = new WebSocket(`ws://${all.url.host}/ws?project=${projectKey(a)}`, { headers: { cookie, origin: all.url.origin } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const spawned = await new Promise<{ error?: unknown }>((resolve) => {
      ws.on('message', (raw: Buffer) => {
        const msg = JSON.parse(raw.toString()) as { id?: number; error?: unknown };
        if (msg.id === 1) resolve(msg);
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pty.spawn', params: { session: { agent: 'claude', allow: ['src/**'] }, command: '/bin/sh', args: ['-c', 'sleep 60'] } }));
    });
    expect(spawned.error).toBeUndefined();
    const hooks = join(a, '.claude', 'settings.local.json');
    expect(existsSync(hooks)).toBe(true);
    all.child.kill('SIGINT');
    expect(await exited(all.child)).toBe(0);
    expect(existsSync(hooks)).toBe(false);
    ws.close();
  });

  it('refuses a single-project serve beside it (and itself beside one), and removes its record on SIGTERM', { timeout: 60_000 }, async () => {
    const home = tempDir('gh-home-');
    const a = repo('alpha');
    expect(start(home, a, 'a1').status).toBe(0);
    const all = await serve(home, ['--all']);
    const single = gatehouse(['serve', '--port', '0', '--project', a], { env: { GATEHOUSE_HOME: home } });
    expect(single.status).toBe(1);
    expect(single.stderr).toContain(`already supervised by \`gatehouse serve --all\` (pid ${all.child.pid} on port ${all.url.port}`);
    const second = gatehouse(['serve', '--all', '--port', '0'], { env: { GATEHOUSE_HOME: home } });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`already supervised by pid ${all.child.pid}`);
    const record = join(home, 'gateway', 'supervisor.json');
    expect(existsSync(record)).toBe(true);
    all.child.kill('SIGTERM');
    expect(await exited(all.child)).toBe(0);
    expect(existsSync(record)).toBe(false);
    // With it gone, the project's own supervisor starts; then --all is refused, naming it.
    const own = await serve(home, ['--project', a]);
    const refused = gatehouse(['serve', '--all', '--port', '0'], { env: { GATEHOUSE_HOME: home } });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`project ${a} is already supervised by its own \`gatehouse serve\` (pid ${own.child.pid}`);
    own.child.kill('SIGTERM');
    await exited(own.child);
  });

  it('is a usage error with --project, and what serve does outside any project, saying so first', { timeout: 60_000 }, async () => {
    const home = tempDir('gh-home-');
    const both = gatehouse(['serve', '--all', '--project', repo('x'), '--port', '0'], { env: { GATEHOUSE_HOME: home } });
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('give either --all or --project DIR');
    const nowhere = tempDir('gh-nowhere-');
    const { child, first } = await serve(home, [], nowhere);
    expect(first).toContain(`gatehouse supervisor for all projects in ${home}`);
    expect(first).toContain(`${nowhere} has no .git, no gatehouse.yaml and no Gatehouse state`);
    child.kill('SIGTERM');
    await exited(child);
    // A folder with a gatehouse.yaml stays a project of its own.
    const proj = tempDir('gh-proj-');
    writeFileSync(join(proj, 'gatehouse.yaml'), 'gate:\n  allow: ["src/**"]\n');
    const mine = await serve(home, [], proj);
    expect(mine.first).toBe(`gatehouse supervisor for ${proj}`);
    mine.child.kill('SIGTERM');
    await exited(mine.child);
  });
});
