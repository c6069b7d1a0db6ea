import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { HOOK, hook, tempDir } from '../support/cli.js';
import { startTestSession } from '../support/git-session.js';

let root: string;
let state: string;

async function start(config = '', allow: string[] = []): Promise<string> {
  if (config) writeFileSync(join(root, 'gatehouse.yaml'), config);
  return (await startTestSession(root, state, { home: join(root, '..', 'home'), allow })).policy.session_id;
}

const args = (id: string, event: string): string[] => ['check', '--session', id, '--event', event, '--state-dir', state];
const bash = (command: string) => ({ hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Bash', tool_input: { command } });
const stop = (extra: Record<string, unknown> = {}) => ({ hook_event_name: 'Stop', cwd: root, last_assistant_message: 'done', ...extra });

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

describe('tool-loop watchdog in the PreToolUse hook', () => {
  it('blocks the fifth identical call and halts the run at the eighth', async () => {
    const id = await start();
    const statuses: (number | null)[] = [];
    let halted = '';
    for (let i = 1; i <= 8; i++) {
      const r = hook(args(id, 'PreToolUse'), bash('ls -la'));
      statuses.push(r.status);
      if (i === 5) expect(r.stderr).toMatch(/different approach/i);
      if (i === 8) halted = r.stdout;
    }
    expect(statuses).toEqual([0, 0, 0, 0, 2, 2, 2, 0]);
    expect(JSON.parse(halted)).toMatchObject({ continue: false });
  });

  it('lets different arguments break the run', async () => {
    const id = await start();
    for (let i = 0; i < 4; i++) hook(args(id, 'PreToolUse'), bash('ls'));
    expect(hook(args(id, 'PreToolUse'), bash('ls src')).status).toBe(0);
    expect(hook(args(id, 'PreToolUse'), bash('ls')).status).toBe(0);
  });

  it('follows configured thresholds', async () => {
    const id = await start('verifiers:\n  repeat_threshold: 2\n  halt_threshold: 3\n');
    expect(hook(args(id, 'PreToolUse'), bash('x')).status).toBe(0);
    expect(hook(args(id, 'PreToolUse'), bash('x')).status).toBe(2);
    expect(JSON.parse(hook(args(id, 'PreToolUse'), bash('x')).stdout)).toMatchObject({ continue: false });
  });

  it('halts when max_tool_calls is exceeded', async () => {
    const id = await start('verifiers:\n  max_tool_calls: 2\n');
    expect(hook(args(id, 'PreToolUse'), bash('a')).status).toBe(0);
    expect(hook(args(id, 'PreToolUse'), bash('b')).status).toBe(0);
    expect(JSON.parse(hook(args(id, 'PreToolUse'), bash('c')).stdout)).toMatchObject({ continue: false });
  });

  it('blocks the next call after N failed tool results seen through PostToolUse', async () => {
    const id = await start('verifiers:\n  failure_threshold: 2\n');
    const failed = { hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Bash', tool_response: { stdout: '', stderr: 'boom', exit_code: 1 } };
    hook(args(id, 'PreToolUse'), bash('a'));
    hook(args(id, 'PostToolUse'), failed);
    hook(args(id, 'PreToolUse'), bash('b'));
    hook(args(id, 'PostToolUse'), failed);
    const r = hook(args(id, 'PreToolUse'), bash('c'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/failed/i);
  });

  it('does nothing when the verifier chain is switched off', async () => {
    const id = await start('verifiers:\n  enabled: false\n');
    for (let i = 0; i < 6; i++) expect(hook(args(id, 'PreToolUse'), bash('ls')).status).toBe(0);
  });
});

describe('Stop-side verifiers in the Stop hook', () => {
  it('halts the run when a [[stop_hooks]] hook exits 3', async () => {
    const id = await start('stop_hooks:\n  - name: budget\n    command: "echo over budget; exit 3"\n');
    const r = hook(args(id, 'Stop'), stop());
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ continue: false });
    expect(JSON.parse(r.stdout).stopReason).toContain('over budget');
  });

  it('blocks with the stop hook stdout on exit 2 and passes the context on stdin', async () => {
    const id = await start(`stop_hooks:\n  - name: ctx\n    command: "cat > ${join(root, '..', 'ctx.json')}; echo needs docs; exit 2"\n`);
    const r = hook(args(id, 'Stop'), stop({ last_assistant_message: 'all good' }));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('needs docs');
    expect(JSON.parse(readFileSync(join(root, '..', 'ctx.json'), 'utf8'))).toMatchObject({ final_text: 'all good', session_id: id, stop_reason: 'end_turn' });
  });

  it('blocks while the latest accepted TodoWrite in the transcript has unfinished items', async () => {
    const id = await start();
    const transcript = join(root, '..', 'transcript.jsonl');
    let calls = 0;
    // A TodoWrite call line and Claude Code's answer to it, accepted or refused.
    const todo = (todos: unknown[], refused = false) => {
      const callId = `toolu_${++calls}`;
      const call = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: callId, name: 'TodoWrite', input: { todos } }] } });
      const result = refused
        ? { type: 'tool_result', content: '<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>', is_error: true, tool_use_id: callId }
        : { tool_use_id: callId, type: 'tool_result', content: 'Todos have been modified successfully.' };
      return `${call}\n${JSON.stringify({ type: 'user', message: { role: 'user', content: [result] } })}\n`;
    };
    writeFileSync(
      transcript,
      todo([
        { content: 'write code', status: 'completed', activeForm: 'x' },
        { content: 'write tests', status: 'in_progress', activeForm: 'x' },
        { content: 'update docs', status: 'pending', activeForm: 'x' },
      ]),
    );
    const r = hook(args(id, 'Stop'), stop({ transcript_path: transcript }));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('write tests (in progress)');
    expect(r.stderr).toContain('update docs');
    expect(r.stderr).not.toContain('write code');
    // A TodoWrite Claude Code refused changes nothing.
    writeFileSync(transcript, todo([{ content: 'write tests', status: 'completed', activeForm: 'x' }], true), { flag: 'a' });
    expect(hook(args(id, 'Stop'), stop({ transcript_path: transcript })).status).toBe(2);
    writeFileSync(transcript, todo([{ content: 'write tests', status: 'completed', activeForm: 'x' }]), { flag: 'a' });
    expect(hook(args(id, 'Stop'), stop({ transcript_path: transcript })).status).toBe(0);
  });

  it('waits at the Stop for the transcript to catch up with the last TodoWrite the gate allowed', async () => {
    const id = await start();
    const transcript = join(root, '..', 'lagging.jsonl');
    const todos = [{ content: 'write tests', status: 'in_progress', activeForm: 'x' }];
    expect(hook(args(id, 'PreToolUse'), { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'TodoWrite', tool_use_id: 'toolu_lag', tool_input: { todos } }).status).toBe(0);
    // Claude Code fires the Stop before its batched writer has put the call and its result in the file.
    writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'parser work' } })}\n`);
    const call = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_lag', name: 'TodoWrite', input: { todos } }] } });
    const result = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_lag', type: 'tool_result', content: 'Todos have been modified successfully.' }] } });
    const child = spawn(process.execPath, [HOOK, ...args(id, 'Stop')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdin.end(JSON.stringify(stop({ transcript_path: transcript })));
    setTimeout(() => writeFileSync(transcript, `${call}\n${result}\n`, { flag: 'a' }), 300);
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(2);
    expect(stderr).toContain('write tests (in progress)');
  });

  it('lets the stop through when the only TodoWrite was refused by Claude Code', async () => {
    const id = await start();
    const transcript = join(root, '..', 'transcript.jsonl');
    const call = JSON.stringify({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'TodoWrite', input: { todos: [{ content: 'write tests', status: 'pending', activeForm: 'x' }] } }] },
    });
    const refused = JSON.stringify({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', content: '<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>', is_error: true, tool_use_id: 'toolu_1' }] },
    });
    writeFileSync(transcript, `${call}\n${refused}\n`);
    expect(hook(args(id, 'Stop'), stop({ transcript_path: transcript })).status).toBe(0);
  });

  it('nudges once to run a check after an unchecked write, and never twice', async () => {
    const id = await start('', ['src/**']);
    hook(args(id, 'PreToolUse'), { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, 'src/a.ts'), content: 'x' } });
    const first = hook(args(id, 'Stop'), stop());
    expect(first.status).toBe(2);
    expect(first.stderr).toMatch(/run a quick check/);
    expect(hook(args(id, 'Stop'), stop()).status).toBe(0);
  });

  it('does not nudge when a command ran after the last write', async () => {
    const id = await start('', ['src/**']);
    hook(args(id, 'PreToolUse'), { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, 'src/a.ts'), content: 'x' } });
    hook(args(id, 'PreToolUse'), bash('npm test'));
    expect(hook(args(id, 'Stop'), stop()).status).toBe(0);
  });

  it('vetoes the stop when the goal gate command fails (fail-closed)', async () => {
    const id = await start('verifiers:\n  goal:\n    objective: make the marker\n    gate_command: test -f marker\n');
    const r = hook(args(id, 'Stop'), stop());
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('make the marker');
    writeFileSync(join(root, 'marker'), '');
    expect(hook(args(id, 'Stop'), stop()).status).toBe(0);
  });

  it('runs extension stop hooks from .gatehouse/hooks.json loaded at session start', async () => {
    mkdirSync(join(root, '.gatehouse'));
    writeFileSync(join(root, '.gatehouse/hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo \'{"decision":"block","reason":"changelog missing"}\'' }] }] } }));
    const id = await start();
    const r = hook(args(id, 'Stop'), stop());
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('changelog missing');
  });
});

describe('shell writes and the mutation nudge', () => {
  it('counts a Bash write as a mutation that needs a later check', async () => {
    const id = await start('', ['src/**']);
    expect(hook(args(id, 'PreToolUse'), bash('echo data > src/out.txt')).status).toBe(0);
    const r = hook(args(id, 'Stop'), stop());
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/run a quick check/);
  });

  it('does not nudge when the Bash command both writes and runs something', async () => {
    const id = await start('', ['src/**']);
    hook(args(id, 'PreToolUse'), bash('npm test > src/test.log'));
    expect(hook(args(id, 'Stop'), stop()).status).toBe(0);
  });
});
