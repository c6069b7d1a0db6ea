// Codex's hook payloads through the real hook bundle: every path an apply_patch adds, updates,
// deletes or moves to is gated, a patch that cannot be read is refused (never guessed at), and
// Bash goes through the shell analysis like any agent's shell tool.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseCodexEvent } from '../../../src/adapters/codex/event.js';
import { startSession } from '../../../src/gate/session-lifecycle.js';
import { HOOK, hook, tempDir, testEnv } from '../../support/cli.js';

let root: string;
let state: string;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

/** A session whose policy the Codex hook is checked against (rendered for Claude: no Codex binary needed here). */
async function start(): Promise<string> {
  const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
  if (!r.ok) throw new Error(r.reason);
  return r.value.policy.session_id;
}

const patch = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
const applyPatch = (text: unknown) => ({
  session_id: 's',
  turn_id: 't',
  cwd: root,
  hook_event_name: 'PreToolUse',
  model: 'm',
  permission_mode: 'bypassPermissions',
  tool_name: 'apply_patch',
  tool_input: { command: text },
  tool_use_id: 'c1',
});
const check = (id: string, payload: unknown) => hook(['check', '--session', id, '--event', 'PreToolUse', '--state-dir', state, '--agent', 'codex'], payload);

describe('parseCodexEvent', () => {
  it('makes every added, updated, deleted and moved-to path of a patch a write target', () => {
    const text = patch('*** Add File: src/new.ts', '+x', '*** Update File: src/a.ts', '*** Move to: lib/a.ts', '@@', '-a', '+b', '*** Delete File: old.txt');
    const r = parseCodexEvent('PreToolUse', applyPatch(text), root);
    expect(r.ok && r.value.kind === 'pre_tool' ? { kind: r.value.toolKind, targets: r.value.targets } : r).toEqual({ kind: 'write', targets: ['src/new.ts', 'src/a.ts', 'lib/a.ts', 'old.txt'] });
  });

  it('marks a patch it cannot read, or a call with no patch, as unreadable', () => {
    for (const input of ['not a patch', 42]) {
      const r = parseCodexEvent('PreToolUse', applyPatch(input), root);
      expect(r.ok && r.value.kind === 'pre_tool' ? r.value.unreadable : r).toMatch(/patch/);
    }
  });

  it('maps Bash to the shell kind and reads the Stop payload without a transcript', () => {
    const bash = parseCodexEvent('PreToolUse', { cwd: root, tool_name: 'Bash', tool_input: { command: 'ls' } }, root);
    expect(bash.ok && bash.value.kind === 'pre_tool' ? bash.value.toolKind : bash).toBe('shell');
    const stop = parseCodexEvent('Stop', { cwd: root, transcript_path: '/x.jsonl', stop_hook_active: false, last_assistant_message: 'done' }, root);
    expect(stop).toEqual({ ok: true, value: { kind: 'stop', cwd: root, lastMessage: 'done', transcriptPath: null } });
  });
});

describe('the Codex hook', () => {
  it('allows a patch whose every path is inside the allowlist, silently', async () => {
    const id = await start();
    expect(check(id, applyPatch(patch('*** Add File: src/a.ts', '+a', '*** Add File: src/b.ts', '+b')))).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('refuses the whole patch when one path, a deletion or a move destination is outside', async () => {
    const id = await start();
    const cases: [string, string][] = [
      [patch('*** Add File: src/a.ts', '+a', '*** Add File: package.json', '+{}'), 'package.json is outside'],
      [patch('*** Delete File: README.md'), 'README.md is outside'],
      [patch('*** Update File: src/a.ts', '*** Move to: ../elsewhere/a.ts', '@@', '-a', '+b'), "outside the task's worktree"],
    ];
    for (const [text, reason] of cases) {
      const r = check(id, applyPatch(text));
      expect(r.status, text).toBe(2);
      expect(r.stderr).toContain(reason);
    }
  });

  it('gates apply_patch run as a shell command the same way, after a cd too, and lets other mentions of it run', async () => {
    const id = await start();
    const heredoc = (body: string, prefix = ''): string => `${prefix}apply_patch <<'EOF'\n${body}EOF\n`;
    const bash = (command: string) => ({ cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
    const outside = check(id, bash(heredoc(patch('*** Add File: package.json', '+{}'))));
    expect(outside.status).toBe(2);
    expect(outside.stderr).toContain('package.json is outside');
    expect(check(id, bash(heredoc(patch('*** Add File: a.ts', '+a'), 'cd src && ')))).toMatchObject({ status: 0, stderr: '' });
    expect(check(id, bash(heredoc(patch('*** Add File: a.ts', '+a'), 'cd .. && '))).status).toBe(2);
    const piped = check(id, bash('cat change.patch | apply_patch'));
    expect(piped.status).toBe(2);
    expect(piped.stderr).toContain('only when it is written out in full');
    expect(check(id, bash('grep -rn apply_patch src'))).toMatchObject({ status: 0, stderr: '' });
  });

  it('refuses a patch it cannot read, saying why', async () => {
    const id = await start();
    const r = check(id, applyPatch('*** Begin Patch\n*** Frobnicate File: src/a.ts\n*** End Patch\n'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('the patch cannot be read');
  });
});
