// The warm hook transport end to end with real processes: `serve` running, sessions
// started with --transport, the rendered command run through `sh -c` as an agent runs it.
// Warm and cold give byte-identical verdicts; with the supervisor gone, stopped or moved,
// the hook falls back to the cold command and enforces the same policy.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';
import { startServe, warmCalls, type Served } from '../support/serve.js';

const served: Served[] = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.stop();
});

interface Project {
  root: string;
  state: string;
}

function project(): Project {
  const base = tempDir('gh-warm-');
  const root = join(base, 'repo');
  mkdirSync(join(root, 'src'), { recursive: true });
  spawnSync('git', ['init', '-q', root]);
  writeFileSync(join(root, 'README.md'), 'hello\n');
  return { root, state: join(base, 'state') };
}

async function serve(p: Project, port = 0): Promise<Served> {
  const s = await startServe(p.root, p.state, port);
  served.push(s);
  return s;
}

function start(p: Project, id: string, transport: string, extra: string[] = []): { status: number | null; stdout: string; stderr: string } {
  return gatehouse(['session', 'start', '--agent', 'claude', '--worktree', p.root, '--state-dir', p.state, '--id', id, '--allow', 'src/**', '--transport', transport, '--json', ...extra]);
}

/** The rendered hook command for an event, as Claude Code would run it. */
function rendered(p: Project, event: string, id: string): string {
  const settings = JSON.parse(readFileSync(join(p.root, '.claude', 'settings.local.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  const cmd = settings.hooks[event]!.flatMap((g) => g.hooks.map((h) => h.command)).find((c) => c.includes(` ${id} `) || c.includes(`--session ${id} `));
  if (cmd === undefined) throw new Error(`no ${event} hook for ${id}`);
  return cmd;
}

function runHook(p: Project, command: string, payload: string, timeout = 60_000): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', command], { cwd: p.root, input: payload, encoding: 'utf8', timeout });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The cold command inside a warm one: everything after ` -- `. */
function coldPart(warm: string): string {
  const at = warm.indexOf(' -- ');
  if (at < 0) throw new Error(`not a warm command: ${warm}`);
  return warm.slice(at + 4);
}

const write = (p: Project, file: string, n = 0): string =>
  JSON.stringify({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: p.root, tool_name: 'Write', tool_input: { file_path: join(p.root, file), content: `v${n}` } });

describe('session start --transport', () => {
  it('renders the cold command with auto when no supervisor runs, and refuses warm with what to do', () => {
    const p = project();
    const auto = start(p, 'a1', 'auto');
    expect(auto.status).toBe(0);
    expect(JSON.parse(auto.stdout).transport).toEqual({ kind: 'command' });
    expect(rendered(p, 'PreToolUse', 'a1')).not.toContain('warm.sh');
    const warm = start(p, 'w1', 'warm');
    expect(warm.status).not.toBe(0);
    // It names the project folder to serve, and the state folder only as the --state-dir it was given.
    expect(warm.stderr).toContain(`\`gatehouse serve --project ${p.root} --state-dir ${p.state}\``);
    const plain = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', p.root, '--id', 'w0', '--transport', 'warm']);
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).toContain(`\`gatehouse serve --project ${p.root}\` (or \`gatehouse serve\` run in ${p.root})`);
    expect(start(p, 'x1', 'fast').stderr).toContain('--transport must be one of auto, command, warm');
  });

  it('goes warm with auto while serve runs: the supervisor decides, with a 0600 secret the agent never passes in argv', async () => {
    const p = project();
    const { url } = await serve(p);
    const s = start(p, 'w2', 'auto');
    expect(s.status).toBe(0);
    expect(JSON.parse(s.stdout).transport).toMatchObject({ kind: 'warm', port: Number(url.port) });
    const cmd = rendered(p, 'PreToolUse', 'w2');
    expect(cmd).toContain('warm.sh');
    const secretFile = join(p.state, 'sessions', 'w2', 'warm.secret');
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(cmd).not.toContain(readFileSync(secretFile, 'utf8').trim());

    const before = await warmCalls(url);
    const allowed = runHook(p, cmd, write(p, 'src/a.ts'));
    expect(allowed).toEqual({ status: 0, stdout: '', stderr: '' });
    const refused = runHook(p, cmd, write(p, 'package.json'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('package.json is outside');
    expect(await warmCalls(url)).toBe(before + 2);
    // The explicit choice works too (and says so), and `command` stays cold with the supervisor up.
    const human = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', p.root, '--state-dir', p.state, '--id', 'w3', '--transport', 'warm']);
    expect(human.stderr).toContain(`transport: warm (supervisor on port ${url.port}`);
    expect(JSON.parse(start(p, 'c3', 'command').stdout).transport).toEqual({ kind: 'command' });
  });

  it('refuses a warm call with a wrong secret, an unknown session or a malformed path', async () => {
    const p = project();
    const { url } = await serve(p);
    start(p, 'w4', 'warm');
    const post = (path: string, secret: string): Promise<Response> =>
      fetch(new URL(path, url), { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: `${p.root.length}\n${p.root}${write(p, 'src/a.ts')}` });
    const secret = readFileSync(join(p.state, 'sessions', 'w4', 'warm.secret'), 'utf8').trim();
    expect((await post('/hooks/v1/w4/PreToolUse/claude/0', 'f'.repeat(64))).status).toBe(401);
    expect((await post('/hooks/v1/nope/PreToolUse/claude/0', secret)).status).toBe(401);
    expect((await post('/hooks/v1/w4/Pre-Tool/claude/0', secret)).status).toBe(400);
    const ok = await post('/hooks/v1/w4/PreToolUse/claude/0', secret);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('GATEHOUSE1 0 0 0\n');
  });
});

describe('a FIFO the agent plants in place of warm.secret', () => {
  it('neither hangs the hook, which decides cold with the same verdicts, nor the supervisor, which refuses the call and serves the next session', async () => {
    const p = project();
    const { url } = await serve(p);
    expect(start(p, 'f1', 'warm').status).toBe(0);
    expect(start(p, 'f2', 'warm').status).toBe(0);
    const secretFile = join(p.state, 'sessions', 'f1', 'warm.secret');
    rmSync(secretFile);
    execFileSync('mkfifo', [secretFile]);
    const before = await warmCalls(url);
    const cmd = rendered(p, 'PreToolUse', 'f1');
    // A hang would end at the 15 s limit with no status: the agent's own timeout lets the call through.
    expect(runHook(p, cmd, write(p, 'src/a.ts'), 15_000)).toEqual({ status: 0, stdout: '', stderr: '' });
    const refused = runHook(p, cmd, write(p, 'package.json'), 15_000);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('package.json is outside');
    // Asked directly, the supervisor reads no secret there and refuses, at once.
    const direct = await fetch(new URL('/hooks/v1/f1/PreToolUse/claude/0', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${'f'.repeat(64)}` },
      body: `${p.root.length}\n${p.root}${write(p, 'src/a.ts')}`,
      signal: AbortSignal.timeout(10_000),
    });
    expect(direct.status).toBe(401);
    // Its thread is free: the other session's call is decided warm.
    expect(runHook(p, rendered(p, 'PreToolUse', 'f2'), write(p, 'src/b.ts'), 15_000)).toEqual({ status: 0, stdout: '', stderr: '' });
    expect(await warmCalls(url)).toBe(before + 1);
  });
});

describe('warm hook fallback', () => {
  it('enforces the same verdict when the supervisor is stopped, hung, or back on another port, and goes warm again on the same one', { timeout: 90_000 }, async () => {
    const p = project();
    const first = await serve(p);
    start(p, 'f1', 'warm');
    const cmd = rendered(p, 'PreToolUse', 'f1');
    const cold = runHook(p, coldPart(cmd), write(p, 'package.json'));
    expect(cold.status).toBe(2);

    // Hung: the status line never comes; the client gives up after 2 s and decides locally.
    first.child.kill('SIGSTOP');
    const hung = runHook(p, cmd, write(p, 'package.json', 1));
    first.child.kill('SIGCONT');
    expect(hung).toEqual(cold);

    // Down: nothing listens on the port.
    await first.stop();
    expect(runHook(p, cmd, write(p, 'package.json', 2))).toEqual(cold);
    expect(runHook(p, cmd, write(p, 'src/b.ts', 3))).toEqual({ status: 0, stdout: '', stderr: '' });

    // Restarted elsewhere: the rendered port answers nothing, the cold path still holds.
    const second = await serve(p);
    expect(runHook(p, cmd, write(p, 'package.json', 4))).toEqual(cold);
    expect(await warmCalls(second.url)).toBe(0);
    await second.stop();

    // Restarted on the same port: warm again, with the secret read afresh from the session.
    const third = await serve(p, Number(first.url.port));
    expect(runHook(p, cmd, write(p, 'package.json', 5))).toEqual(cold);
    expect(await warmCalls(third.url)).toBe(1);
  });
});

/** A stand-in for the supervisor, as an agent could write it: answers "allow" to every call, printing each bearer. */
const STAND_IN = `require('node:http').createServer((req, res) => {
  process.stdout.write((req.headers.authorization ?? '') + '\\n');
  req.resume();
  req.on('end', () => res.end('GATEHOUSE1 0 0 0\\n'));
}).listen(Number(process.argv[1]), '127.0.0.1', () => process.stdout.write('listening\\n'));`;

describe('a listener standing in for the supervisor', () => {
  // The agent runs as the same user: it can stop the supervisor and listen on its port. Nothing it
  // cannot read or forge tells the warm client the two apart, so this is a stated limit
  // (docs/trust-boundary.md); what must hold is that the end-of-session check still fails the work.
  it('is believed by the warm client in-session, and the end-of-session check still fails the write it let through', { timeout: 60_000 }, async () => {
    const p = project();
    const real = await serve(p);
    expect(start(p, 'i1', 'warm').status).toBe(0);
    const cmd = rendered(p, 'PreToolUse', 'i1');
    await real.stop();
    // Its own process: the hook below is run synchronously, which would stall a listener in this one.
    const fake = spawn(process.execPath, ['-e', STAND_IN, real.url.port], { stdio: ['ignore', 'pipe', 'inherit'] });
    let heard = '';
    await new Promise<void>((resolve, reject) => {
      fake.stdout!.on('data', (d: Buffer) => {
        heard += d.toString();
        if (heard.startsWith('listening\n')) resolve();
      });
      fake.once('exit', (code) => reject(new Error(`the stand-in exited with ${code}`)));
    });
    try {
      const answered = runHook(p, cmd, write(p, 'package.json'));
      // The stated limit: the stand-in's "allow" is taken, and it learns only the session's own secret.
      expect(answered).toEqual({ status: 0, stdout: '', stderr: '' });
      // The bearer line was written before the answer; this process reads it on a later tick.
      for (let waited = 0; heard === 'listening\n' && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(heard).toBe(`listening\nBearer ${readFileSync(join(p.state, 'sessions', 'i1', 'warm.secret'), 'utf8').trim()}\n`);
    } finally {
      const exited = new Promise((resolve) => fake.once('exit', resolve));
      fake.kill();
      await exited;
    }
    writeFileSync(join(p.root, 'package.json'), '{}\n');
    const check = gatehouse(['session', 'check', 'i1', '--worktree', p.root, '--state-dir', p.state]);
    expect(check.status).toBe(1);
    expect(check.stdout).toContain('package.json');
  });
});

describe('warm and cold verdicts', () => {
  it('record the digest of the input exactly as the agent sent it, trailing newlines and all', { timeout: 60_000 }, async () => {
    const p = project();
    const { url } = await serve(p);
    expect(start(p, 'd1', 'warm').status).toBe(0);
    const payload = `${write(p, 'package.json', 7)}\n\n`;
    expect(runHook(p, rendered(p, 'PreToolUse', 'd1'), payload).status).toBe(2);
    expect(await warmCalls(url)).toBe(1);
    const events = readFileSync(join(p.state, 'audit', 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: { input_digest?: string } });
    const decision = events.filter((e) => e.type === 'gate_decision').at(-1);
    expect(decision?.data.input_digest).toBe(createHash('sha256').update(payload).digest('hex'));
  });

  it('are byte-identical over a corpus of events, from the same state', { timeout: 120_000 }, async () => {
    const p = project();
    const { url } = await serve(p);
    expect(start(p, 'v1', 'warm', ['--require', 'ok=true']).status).toBe(0);
    const pre = rendered(p, 'PreToolUse', 'v1');
    const stopCmd = rendered(p, 'Stop', 'v1');
    const bash = (command: string): string => JSON.stringify({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: p.root, tool_name: 'Bash', tool_input: { command } });
    const stopEvent = JSON.stringify({ session_id: 'x', hook_event_name: 'Stop', cwd: p.root, stop_hook_active: false, last_assistant_message: 'done' });
    const corpus: [string, string][] = [
      [pre, write(p, 'src/a.ts')],
      [pre, write(p, 'package.json')],
      [pre, write(p, '.claude/settings.local.json')],
      [
        pre,
        JSON.stringify({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: p.root, tool_name: 'Edit', tool_input: { file_path: join(p.root, '../outside.txt'), old_string: 'a', new_string: 'b' } }),
      ],
      [pre, bash('echo hi > src/ok.txt')],
      [pre, bash('echo hi > notes.txt')],
      [pre, bash('ls -la')],
      [pre, JSON.stringify({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: p.root, tool_name: 'Read', tool_input: { file_path: join(p.root, 'README.md') } })],
      [pre, 'not json at all\n\n'],
      [pre, `${write(p, 'src/ü ñ.ts')}\n`],
      [stopCmd, stopEvent],
    ];
    // Each event runs from the same saved state both ways, so counters and logs cannot differ.
    const saved = `${p.state}.saved`;
    let i = 0;
    for (const [command, payload] of corpus) {
      rmSync(saved, { recursive: true, force: true });
      cpSync(p.state, saved, { recursive: true });
      const cold = runHook(p, coldPart(command), payload);
      rmSync(p.state, { recursive: true, force: true });
      cpSync(saved, p.state, { recursive: true });
      const warm = runHook(p, command, payload);
      expect({ i, ...warm }).toEqual({ i, ...cold });
      i++;
    }
    // Every warm run was decided by the supervisor, not by the fallback.
    expect(await warmCalls(url)).toBe(corpus.length);
    // The corpus covers both verdicts.
    const statuses = corpus.map(([c, pl]) => runHook(p, c, pl).status);
    expect(statuses).toContain(0);
    expect(statuses).toContain(2);
  });
});
