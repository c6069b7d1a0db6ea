import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CLI, gatehouse, tempDir } from '../support/cli.js';
import { runRenderedHook } from '../support/rendered-hook.js';

let base: string;
let root: string;
let state: string;
const settings = (): string => join(root, '.claude', 'settings.local.json');

beforeEach(() => {
  base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

function start(extra: string[] = []): string {
  const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', ...extra]);
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.status).toBe(0);
  return r.stdout.trim();
}

describe('gatehouse session start / end', () => {
  it('renders PreToolUse and Stop command hooks that run the hook bundle by absolute path', () => {
    const id = start(['--require', 'test=npm test']);
    const hooks = JSON.parse(readFileSync(settings(), 'utf8')).hooks;
    // The tool-loop watchdog is on by default, so PreToolUse sees every tool.
    expect(hooks.PreToolUse[0].matcher).toBe('*');
    const pre = hooks.PreToolUse[0].hooks[0];
    expect(pre.type).toBe('command');
    expect(pre.command.startsWith(`${process.execPath} `)).toBe(true);
    expect(pre.command).toContain(join(process.cwd(), 'dist/hook/hook.js'));
    expect(pre.command).toContain(`--session ${id} --event PreToolUse`);
    expect(pre.command).not.toMatch(/npx|npm /);
    const stop = hooks.Stop[0].hooks[0];
    expect(stop.command).toContain('--event Stop');
    expect(stop.timeout).toBeGreaterThan(300);
    const policy = JSON.parse(readFileSync(join(state, 'sessions', id, 'policy.json'), 'utf8'));
    expect(policy.producers).toEqual([{ name: 'test', kind: 'check', command: ['npm', 'test'], required: true, timeout_s: 300 }]);
  });

  it('renders the exact write tools, not a regex, when no verifier needs every tool', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'verifiers:\n  enabled: false\n');
    const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--require', 't=true']);
    expect(r.status).toBe(0);
    const hooks = JSON.parse(readFileSync(settings(), 'utf8')).hooks;
    expect(hooks.PreToolUse[0].matcher).toBe('Write|Edit|MultiEdit|NotebookEdit');
    expect(hooks.PostToolUse).toBeUndefined();
  });

  it('renders PostToolUse only when the failure watchdog is on', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'verifiers:\n  failure_threshold: 3\n');
    start();
    const hooks = JSON.parse(readFileSync(settings(), 'utf8')).hooks;
    expect(hooks.PostToolUse[0].hooks[0].command).toContain('--event PostToolUse');
  });

  it('prints the session as JSON with --json', () => {
    const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--id', 'my-id', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.session_id).toBe('my-id');
    expect(out.capabilities.write_gate.level).toBe('blocking');
  });

  it('merges into an existing settings file and end restores it byte for byte', () => {
    mkdirSync(join(root, '.claude'));
    const original = '{\n\t"model": "x",\n\t"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}\n}\n';
    writeFileSync(settings(), original);
    const id = start();
    const during = JSON.parse(readFileSync(settings(), 'utf8'));
    expect(during.hooks.Stop).toHaveLength(2);
    expect(during.model).toBe('x');
    expect(gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]).status).toBe(0);
    expect(readFileSync(settings(), 'utf8')).toBe(original);
    // Idempotent.
    const again = gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(`session ${id} already ended; nothing to remove\n`);
    expect(readFileSync(settings(), 'utf8')).toBe(original);
  });

  it('deletes the settings file and folder it created when the session ends', () => {
    const id = start();
    expect(existsSync(settings())).toBe(true);
    gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]);
    expect(existsSync(join(root, '.claude'))).toBe(false);
  });

  it('refuses a corrupt settings file and leaves it and the state untouched', () => {
    mkdirSync(join(root, '.claude'));
    writeFileSync(settings(), '{"hooks": ');
    const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--id', 'x1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('settings.local.json');
    expect(readFileSync(settings(), 'utf8')).toBe('{"hooks": ');
    expect(existsSync(join(state, 'sessions', 'x1'))).toBe(false);
  });

  it('refuses an agent without an adapter as a usage error and renders nothing', () => {
    const r = gatehouse(['session', 'start', '--agent', 'someagent', '--worktree', root, '--state-dir', state]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown agent "someagent"');
    expect(existsSync(join(root, '.claude'))).toBe(false);
  });

  it('lists and shows sessions, and prints the state dir', () => {
    const id = start();
    const list = gatehouse(['session', 'list', '--worktree', root, '--state-dir', state, '--json']);
    expect(JSON.parse(list.stdout).map((m: { id: string }) => m.id)).toEqual([id]);
    const show = gatehouse(['session', 'show', id, '--worktree', root, '--state-dir', state]);
    expect(show.stdout).toContain('src/**');
    const where = gatehouse(['where', '--worktree', root], { env: { GATEHOUSE_HOME: join(base, 'home') } });
    expect(where.stdout.trim().startsWith(join(base, 'home', 'projects'))).toBe(true);
  });
});

describe('gatehouse input errors', () => {
  it('exits 2 on an unknown flag and on a missing --agent', () => {
    expect(gatehouse(['session', 'start', '--bogus']).status).toBe(2);
    expect(gatehouse(['session', 'start', '--worktree', root]).status).toBe(2);
  });

  it('exits 1 with a clear message for an unknown session', () => {
    const r = gatehouse(['session', 'end', 'nope', '--worktree', root, '--state-dir', state]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no session nope');
  });

  it('rejects a malformed --require and an allow pattern that leaves the worktree', () => {
    expect(gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--require', 'npm test']).stderr).toContain('NAME=COMMAND');
    expect(gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', '../x/**']).stderr).toContain("'..'");
    expect(gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--require', 't="unterminated']).status).toBe(1);
    // One sentence: no capital after the flag's name.
    expect(gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--require', 'test=']).stderr).toContain(
      '--require test: the command is empty; give the program to run',
    );
  });

  it('names the bad key and line of a config error', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'gate:\n  alow: [src/]\n');
    const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/gatehouse\.yaml:2: gate\.alow/);
  });

  it('says plainly what no hook can protect without a sandbox, in `agents` and at session start', () => {
    const agents = gatehouse(['agents']);
    expect(agents.stdout).toContain('signing key');
    expect(agents.stdout).toContain('sandboxed: false');
    const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state]);
    expect(started.stderr).toMatch(/sandbox: +none/);
  });

  it('prints help for every command', () => {
    for (const cmd of [[], ['session', 'start'], ['session', 'end'], ['run'], ['where'], ['hook-gate', 'check'], ['agents'], ['demo']]) {
      const r = gatehouse([...cmd, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('Usage:');
    }
  });
});

describe('gatehouse run', () => {
  const run = (cmd: string[], extra: string[] = []) => gatehouse(['run', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', ...extra, '--', ...cmd]);

  it('never counts a state folder inside the worktree as a change of the agent', () => {
    const r = gatehouse([
      'run',
      '--agent',
      'claude',
      '--worktree',
      root,
      '--state-dir',
      join(root, '.gatehouse-state'),
      '--allow',
      'src/**',
      '--',
      process.execPath,
      '-e',
      "require('fs').writeFileSync('src/a.txt','x')",
    ]);
    expect(r.stderr).toContain('PASSED');
    expect(r.status).toBe(0);
  });

  it("exits with the command's own status when the end-of-session check passes", () => {
    const r = run([process.execPath, '-e', "require('fs').writeFileSync('src/a.txt','x'); process.exit(3)"]);
    expect(r.stderr).toContain('PASSED');
    expect(r.status).toBe(3);
    expect(existsSync(join(root, '.claude'))).toBe(false);
  });

  it('exits 1 when the command changed a file outside the allowlist', () => {
    const r = run([process.execPath, '-e', "require('fs').writeFileSync('notes.txt','x')"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('created: notes.txt');
  });

  it('exits 1 when a required check fails at the end', () => {
    const r = run(['true'], ['--require', `t=${process.execPath} -e process.exit(4)`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('FAILED');
  });

  it('records the end verdict in the session', () => {
    run(['true'], ['--id', 'v1']);
    const meta = JSON.parse(readFileSync(join(state, 'sessions', 'v1', 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ status: 'ended', end_verdict: { passed: true } });
  });

  it('still removes the rendered hooks when interrupted with Ctrl-C', async () => {
    const child = spawn(process.execPath, [CLI, 'run', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--', process.execPath, '-e', 'setTimeout(()=>{}, 30000)'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((res) => {
      const t = setInterval(() => {
        if (err.includes('started')) {
          clearInterval(t);
          res();
        }
      }, 20);
    });
    expect(existsSync(settings())).toBe(true);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    expect(existsSync(join(root, '.claude'))).toBe(false);
    expect(code).not.toBe(0);
  });

  it('leaves no rendered hooks behind when Ctrl-C arrives at any moment of start-up', async () => {
    for (const delayMs of [0, 150, 300]) {
      const child = spawn(process.execPath, [CLI, 'run', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--', process.execPath, '-e', 'setTimeout(()=>{}, 30000)'], {
        stdio: 'ignore',
      });
      await new Promise((res) => setTimeout(res, delayMs));
      child.kill('SIGINT');
      const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
      expect(existsSync(join(root, '.claude')), `after ${delayMs} ms`).toBe(false);
      expect(code).not.toBe(0);
    }
  });

  it('refuses a missing command with a usage error', () => {
    const r = gatehouse(['run', '--agent', 'claude', '--worktree', root, '--state-dir', state]);
    expect(r.status).toBe(2);
  });
});

describe('gatehouse demo', () => {
  it('shows a refused write, a refused finish and a passing end check', () => {
    const r = gatehouse(['demo']);
    expect(r.stdout).toContain('REFUSED by the write gate');
    expect(r.stdout).toContain('REFUSED by the completion gate');
    expect(r.stdout).toContain('allowed: the required checks pass');
    expect(r.status).toBe(0);
  });
});

describe('verifiers.order cannot switch the completion gate off', () => {
  it('says what the order leaves out at start, and still refuses a Stop with a change outside the allowlist', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'verifiers:\n  order: [tool_loop]\n');
    const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('note: verifier "scope_check" is not in verifiers.order; it runs last anyway, because it is part of the completion gate');
    expect(r.stderr).toContain('note: verifier "mutation_nudge" is available but not in verifiers.order; not run');
    writeFileSync(join(root, 'outside.txt'), 'x\n');
    const stop = runRenderedHook(root, 'Stop', { hook_event_name: 'Stop', cwd: root, session_id: 'x', last_assistant_message: 'Done.', stop_hook_active: false });
    expect(stop.status).toBe(2);
    expect(stop.stderr).toContain('outside.txt');
    gatehouse(['session', 'end', r.stdout.trim(), '--worktree', root, '--state-dir', state]);
  });
});
