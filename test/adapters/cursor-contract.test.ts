// Cursor's hook contract, tested without a Cursor binary (none runs here): `session start
// --agent cursor` renders into .cursor/hooks.json, and the rendered commands — run through
// `sh -c` as Cursor runs them — answer payloads shaped as Cursor's hook documentation
// describes (common fields plus the event's own) in Cursor's JSON.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse, tempDir } from '../support/cli.js';

let root: string;
let state: string;
let id = '';

beforeEach(() => {
  const base = tempDir('gh-cursor-');
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  spawnSync('git', ['init', '-q', root]);
});

afterEach(() => {
  if (id) gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]);
  id = '';
});

function start(extra: string[] = []): void {
  const r = gatehouse(['session', 'start', '--agent', 'cursor', '--worktree', root, '--state-dir', state, '--allow', 'src/**', ...extra]);
  expect(r.status, r.stderr).toBe(0);
  id = r.stdout.trim();
}

type Hooks = Record<string, { command: string; matcher?: string; loop_limit?: number }[]>;
const hooksOf = (): Hooks => (JSON.parse(readFileSync(join(root, '.cursor', 'hooks.json'), 'utf8')) as { hooks: Hooks }).hooks;

/** Runs the rendered command for `event` with a payload carrying Cursor's common fields. */
function fire(event: string, fields: Record<string, unknown>, matcher?: string): { status: number | null; json: Record<string, unknown> | null } {
  const entry = hooksOf()[event]!.find((h) => h.command.includes('--session') && (matcher === undefined || h.matcher === matcher));
  const payload = { hook_event_name: event, conversation_id: 'conv-1', generation_id: 'gen-1', workspace_roots: [root], model: 'gpt-5', cursor_version: '2.0.77', ...fields };
  const r = spawnSync('/bin/sh', ['-c', entry!.command], { cwd: root, input: JSON.stringify(payload), encoding: 'utf8' });
  return { status: r.status, json: r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as Record<string, unknown>) };
}

describe('Cursor hooks contract', () => {
  it('denies an out-of-scope Write with the reason for the model, allows an in-scope one', () => {
    start();
    expect(hooksOf()['preToolUse']!.map((h) => h.matcher)).toEqual(['Write', 'StrReplace', 'Edit', 'Delete']);
    const out = fire('preToolUse', { tool_name: 'Write', tool_input: { file_path: join(root, 'package.json'), contents: '{}' } }, 'Write');
    expect(out.status).toBe(0);
    expect(out.json).toMatchObject({ permission: 'deny' });
    expect(String(out.json?.['agent_message'])).toContain('package.json is outside');
    expect(fire('preToolUse', { tool_name: 'Write', tool_input: { file_path: join(root, 'src/a.ts'), contents: 'x' } }, 'Write')).toEqual({ status: 0, json: null });
  });

  it('denies a shell command writing outside the allowlist before it runs', () => {
    start();
    const out = fire('beforeShellExecution', { command: 'echo leaked > notes.txt', cwd: root });
    expect(out.json).toMatchObject({ permission: 'deny' });
    expect(fire('beforeShellExecution', { command: 'ls -la', cwd: root }).json).toBeNull();
  });

  it('continues the agent through followup_message while a required check fails, within loop_limit', () => {
    const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
    start(['--require', `unit=${check}`]);
    expect(hooksOf()['stop']![0]!.loop_limit).toBeGreaterThan(0);
    const blocked = fire('stop', { status: 'completed', loop_count: 0 });
    expect(String(blocked.json?.['followup_message'])).toContain('FAIL: src/fixed.ts missing');
    writeFileSync(join(root, 'src', 'fixed.ts'), 'fixed\n');
    expect(fire('stop', { status: 'completed', loop_count: 1 }).json).toBeNull();
  });

  it('keeps a project hooks.json exactly as it was after the session', () => {
    mkdirSync(join(root, '.cursor'));
    const before = '{\n  "version": 1,\n  "hooks": { "afterFileEdit": [{ "command": "./format.sh" }] }\n}\n';
    writeFileSync(join(root, '.cursor', 'hooks.json'), before);
    start();
    expect(hooksOf()['afterFileEdit']).toEqual([{ command: './format.sh' }]);
    expect(gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]).status).toBe(0);
    id = '';
    expect(readFileSync(join(root, '.cursor', 'hooks.json'), 'utf8')).toBe(before);
  });

  it('creates .cursor/hooks.json when there was none and removes it (and the folder) at the end', () => {
    start();
    expect(existsSync(join(root, '.cursor', 'hooks.json'))).toBe(true);
    expect(gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]).status).toBe(0);
    id = '';
    expect(existsSync(join(root, '.cursor'))).toBe(false);
  });

  it('removes only its own entries when the file changed during the session', () => {
    start();
    const file = join(root, '.cursor', 'hooks.json');
    const during = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Hooks };
    during.hooks['afterFileEdit'] = [{ command: './format.sh' }];
    writeFileSync(file, JSON.stringify(during));
    expect(gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]).status).toBe(0);
    id = '';
    const after = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Hooks };
    expect(after.hooks['afterFileEdit']).toEqual([{ command: './format.sh' }]);
    expect(JSON.stringify(after)).not.toContain('--session');
    expect(existsSync(file)).toBe(true);
  });
});
