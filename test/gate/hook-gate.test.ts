import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { shellJoin } from '../../src/core/shell-quote.js';
import { HOOK, hook, tempDir, testEnv } from '../support/cli.js';

let root: string;
let state: string;

async function start(opts: { allow?: string[]; require?: string[]; config?: string } = {}): Promise<string> {
  if (opts.config !== undefined) writeFileSync(join(root, 'gatehouse.yaml'), opts.config);
  const r = await startSession({
    agent: 'claude',
    worktree: root,
    allow: opts.allow ?? ['src/**'],
    require: opts.require ?? [],
    stateDir: state,
    env: testEnv(),
    nodePath: process.execPath,
    hookBundle: HOOK,
  });
  if (!r.ok) throw new Error(r.reason);
  return r.value.policy.session_id;
}

const args = (id: string, event: string, extra: string[] = []): string[] => ['check', '--session', id, '--event', event, '--state-dir', state, ...extra];
const write = (file: string) => ({ hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: file, content: 'x' } });
const stopPayload = () => ({ hook_event_name: 'Stop', cwd: root, last_assistant_message: 'done', stop_hook_active: false });
const nodeCmd = (code: string): string => `check=${shellJoin([process.execPath, '-e', code])}`;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

describe('hook bundle: write gate', () => {
  it('refuses an out-of-scope Write with exit 2 and a reason that says what to do', async () => {
    const id = await start();
    const r = hook(args(id, 'PreToolUse'), write(join(root, 'package.json')));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('package.json is outside');
    expect(r.stderr).toContain('src/**');
    expect(r.stderr).toMatch(/Do not retry/);
  });

  it('allows an in-scope Write silently', async () => {
    const id = await start();
    const r = hook(args(id, 'PreToolUse'), write(join(root, 'src/a.ts')));
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('allows tools that do not write', async () => {
    const id = await start();
    const r = hook(args(id, 'PreToolUse'), { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Read', tool_input: { file_path: '/etc/passwd' } });
    expect(r.status).toBe(0);
  });

  it('gates NotebookEdit on notebook_path', async () => {
    const id = await start();
    const r = hook(args(id, 'PreToolUse'), { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'NotebookEdit', tool_input: { notebook_path: join(root, 'x.ipynb'), new_source: '' } });
    expect(r.status).toBe(2);
  });

  it('refuses writing the rendered settings file even with a catch-all allowlist', async () => {
    const id = await start({ allow: ['**'] });
    const r = hook(args(id, 'PreToolUse'), write(join(root, '.claude/settings.local.json')));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("supervisor's own files");
  });
});

describe('hook bundle: failure posture', () => {
  it('exits 0 and touches nothing for an unsafe session id', () => {
    for (const id of ['../x', 'a/b', 'a..b', 'x'.repeat(129), '']) {
      const r = hook(['check', '--session', id, '--event', 'PreToolUse', '--state-dir', state], write('/etc/x'));
      expect(r.status).toBe(0);
    }
    expect(existsSync(state)).toBe(false);
  });

  it('allows through and logs when the policy is missing', () => {
    mkdirSync(join(state, 'sessions', 'ghost'), { recursive: true });
    const r = hook(args('ghost', 'PreToolUse'), write('/etc/x'));
    expect(r.status).toBe(0);
    expect(readFileSync(join(state, 'sessions', 'ghost', 'gate.log'), 'utf8')).toContain('cannot load the session policy');
  });

  it('refuses when the policy is missing and the render is fail-closed', () => {
    mkdirSync(join(state, 'sessions', 'ghost'), { recursive: true });
    const r = hook(args('ghost', 'PreToolUse', ['--fail-closed']), write('/etc/x'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('fail-closed');
  });

  it("refuses malformed hook JSON in the default posture too (the input is the agent's, not an infrastructure failure) and logs it", async () => {
    const id = await start();
    const r = hook(args(id, 'PreToolUse'), '{not json');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('not valid JSON');
    expect(readFileSync(join(state, 'sessions', id, 'gate.log'), 'utf8')).toContain('not valid JSON');
  });

  it('allows through an infrastructure failure in the default posture: an agent the bundle has no adapter for', async () => {
    const id = await start();
    const r = hook(['check', '--session', id, '--event', 'PreToolUse', '--state-dir', state, '--agent', 'nosuch'], {
      hook_event_name: 'PreToolUse',
      cwd: '/',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    });
    expect(r.status).toBe(0);
    expect(readFileSync(join(state, 'sessions', id, 'gate.log'), 'utf8')).toContain('no hook adapter');
  });

  it('blocks on malformed hook JSON when the policy posture is fail-closed', async () => {
    const id = await start({ config: 'gate:\n  posture: fail-closed\n' });
    const r = hook(args(id, 'PreToolUse'), '{not json');
    expect(r.status).toBe(2);
  });

  it('never exits 1, even for a bad command line', () => {
    const r = hook(['bogus'], '{}');
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('usage');
  });
});

describe('hook bundle: completion gate', () => {
  it('blocks Stop while a required check fails, with the tail of its output, then allows once it passes', async () => {
    const id = await start({ require: [nodeCmd("const fs=require('fs'); if (!fs.existsSync('src/done')) { console.error('3 tests failed: expected done'); process.exit(1) }")] });
    const blocked = hook(args(id, 'Stop'), stopPayload());
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toContain('required check "check"');
    expect(blocked.stderr).toContain('3 tests failed: expected done');
    writeFileSync(join(root, 'src/done'), '');
    const passed = hook(args(id, 'Stop'), stopPayload());
    expect(passed).toMatchObject({ status: 0, stdout: '' });
  });

  it('blocks Stop when a file outside the allowlist changed, by any tool', async () => {
    const id = await start();
    writeFileSync(join(root, 'outside.txt'), 'written by a shell command');
    writeFileSync(join(root, 'src/inside.ts'), 'fine');
    const r = hook(args(id, 'Stop'), stopPayload());
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('created: outside.txt');
    expect(r.stderr).not.toContain('inside.ts');
  });

  it('does not count its own rendered settings as an out-of-scope change', async () => {
    const id = await start();
    expect(hook(args(id, 'Stop'), stopPayload()).status).toBe(0);
  });

  it('lets the turn end after max_stop_blocks consecutive blocks and says it is unverified', async () => {
    const id = await start({ config: 'gate:\n  max_stop_blocks: 2\n', require: [nodeCmd('process.exit(1)')] });
    expect(hook(args(id, 'Stop'), stopPayload()).status).toBe(2);
    expect(hook(args(id, 'Stop'), stopPayload()).status).toBe(2);
    const third = hook(args(id, 'Stop'), stopPayload());
    expect(third.status).toBe(0);
    expect(JSON.parse(third.stdout).systemMessage).toMatch(/UNVERIFIED/);
    // The count starts again after the unverified stop.
    expect(hook(args(id, 'Stop'), stopPayload()).status).toBe(2);
  });

  it('logs each stop decision in the session log', async () => {
    const id = await start();
    hook(args(id, 'Stop'), stopPayload());
    const lines = readFileSync(join(state, 'sessions', id, 'gate.log'), 'utf8')
      .trim()
      .split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ kind: 'decision', event: 'stop', decision: 'allow' });
    expect(readdirSync(join(state, 'sessions', id))).toContain('turn-state.json');
  });
});
