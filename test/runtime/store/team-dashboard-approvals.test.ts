// The team's "done" case, end to end through the CLI: two machines (separate processes, each with
// its own GATEHOUSE_HOME and project) each have an agent's real hook waiting on an approval; their
// `gatehouse serve` links relay the requests to one PostgreSQL store; one dashboard on a third
// machine (`serve --store`) lists both and answers them; each hook is released with its answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitCommand } from '../../../src/core/argv.js';
import { CLI, gatehouse, tempDir } from '../../support/cli.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

let server: TestPostgres;
let setting: string;
const children: ChildProcess[] = [];

interface Machine {
  home: string;
  worktree: string;
  env: NodeJS.ProcessEnv;
}

function machine(name: string): Machine {
  const root = tempDir(`gh-team-ap-${name}-`);
  const worktree = join(root, name);
  mkdirSync(worktree, { recursive: true });
  writeFileSync(join(worktree, 'gatehouse.yaml'), 'gate:\n  allow: ["src/**"]\napprovals:\n  interactive: true\n  timeout_s: 120\n');
  return { home: join(root, 'home'), worktree, env: { GATEHOUSE_HOME: join(root, 'home'), GATEHOUSE_STORE: setting } };
}

function serve(args: string[], env: NodeJS.ProcessEnv): Promise<{ base: string; token: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /dashboard: (http:\/\/[^/\s]+)\/\?token=([0-9a-f]+)/.exec(out);
      if (m) resolve({ base: m[1]!, token: m[2]! });
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (status) => reject(new Error(`serve exited ${status}: ${err}`)));
  });
}

/** Starts the session's rendered PreToolUse hook on a Bash call that needs a person; resolves when it exits. */
function askingHook(m: Machine, command: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const settings = JSON.parse(readFileSync(join(m.worktree, '.claude', 'settings.local.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  const argv = splitCommand(settings.hooks['PreToolUse']![0]!.hooks[0]!.command);
  if (!argv.ok) throw new Error(argv.reason);
  const payload = { hook_event_name: 'PreToolUse', cwd: m.worktree, session_id: 'x', tool_name: 'Bash', tool_input: { command } };
  return new Promise((resolve) => {
    const child = spawn(argv.value[0]!, argv.value.slice(1), { cwd: m.worktree, env: { ...process.env, ...m.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

async function until<T>(what: string, get: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  server = await startPostgres();
  setting = `${server.url}?password_env=${server.passwordEnv}`;
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  server?.destroy();
});

describe('one dashboard answers two machines', { timeout: 90_000 }, () => {
  it("two machines' agents wait on approvals; the team dashboard lists both and releases each with its answer", async () => {
    const a = machine('alpha');
    const b = machine('beta');
    for (const m of [a, b]) {
      const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', m.worktree, '--transport', 'command'], { env: m.env });
      expect(r.status, r.stderr).toBe(0);
      await serve(['--project', m.worktree], m.env);
    }
    const hookA = askingHook(a, 'git push origin main');
    const hookB = askingHook(b, 'git push origin release');

    const dash = await serve(['--store', setting, '--project', machine('gamma').worktree], { GATEHOUSE_HOME: tempDir('gh-team-ap-home-') });
    const auth = { authorization: `Bearer ${dash.token}` };
    type Pending = { id: string; nonce: string; machine_id: string; summary: string };
    const pending = await until('both requests on the team dashboard', async () => {
      const r = await fetch(`${dash.base}/api/team/approvals`, { headers: auth });
      const body = (await r.json()) as { wired: boolean; pending: Pending[] };
      return body.pending.length >= 2 ? body.pending : null;
    });
    const ids = [a, b].map((m) => readFileSync(join(m.home, 'machine-id'), 'utf8').trim());
    expect(new Set(pending.map((p) => p.machine_id))).toEqual(new Set(ids));
    const of = (machineId: string): Pending => pending.find((p) => p.machine_id === machineId)!;
    expect(of(ids[0]!).summary).toContain('git push origin main');

    const answer = (p: Pending, decision: 'allow' | 'deny') =>
      fetch(`${dash.base}/api/team/approvals/${p.id}/resolve`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ decision, nonce: p.nonce }) });
    expect((await answer(of(ids[0]!), 'allow')).status).toBe(200);
    expect((await answer(of(ids[1]!), 'deny')).status).toBe(200);
    // Exactly once: a second answer to the same request is refused and names the winner.
    const again = await answer(of(ids[0]!), 'deny');
    expect(again.status).toBe(410);

    const [ra, rb] = await Promise.all([hookA, hookB]);
    expect(ra.status, ra.stderr).toBe(0);
    expect(rb.status === 2 || /"deny"/.test(rb.stdout), `${rb.status} ${rb.stdout} ${rb.stderr}`).toBe(true);
    // Each machine's own audit log records who answered.
    for (const [m, decision] of [
      [a, 'allow'],
      [b, 'reject'],
    ] as const) {
      const r = gatehouse(['audit', 'tail', '--json', '-n', '50', '--worktree', m.worktree], { env: m.env });
      const events = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; actor: string; data: { decision?: string } });
      const decided = events.find((e) => e.type === 'human_approval_decision');
      expect(decided?.data.decision).toBe(decision);
      // The dashboard's operator, named on the machine that asked.
      expect(decided?.actor).toMatch(/^dashboard-operator:./);
    }
  });
});
