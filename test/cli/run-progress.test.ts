// `gatehouse run` tells its user, on stderr as they happen, each refusal, each refused stop and
// each call waiting for a person. The agent here is a script that runs the hooks rendered for it
// exactly as Claude Code would (the command from its settings, the event on stdin).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { CLI, gatehouse, tempDir } from '../support/cli.js';

let root: string;
let state: string;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

/** An agent that runs each event through the hook its settings name, then waits `lingerMs` and exits. */
function agentScript(events: unknown[], lingerMs: number): string {
  const file = join(root, '..', 'agent.cjs');
  writeFileSync(
    file,
    `const { execSync } = require('child_process');
const fs = require('fs');
const s = JSON.parse(fs.readFileSync('.claude/settings.local.json', 'utf8'));
const cmd = (ev) => s.hooks[ev][0].hooks[0].command;
for (const e of ${JSON.stringify(events)}) {
  try { execSync(cmd(e.hook_event_name), { input: JSON.stringify({ ...e, cwd: process.cwd() }), stdio: ['pipe', 'ignore', 'ignore'] }); } catch {}
}
setTimeout(() => {}, ${lingerMs});
`,
  );
  return file;
}

describe('gatehouse run progress', () => {
  it('prints a refused write and a refused stop as they happen, one line each, and nothing for allowed calls', () => {
    const agent = agentScript(
      [
        { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(root, 'src/ok.ts'), content: 'x' } },
        { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(root, 'README.md'), content: 'x' } },
        { hook_event_name: 'Stop', stop_hook_active: false },
      ],
      600,
    );
    const r = gatehouse(['run', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--require', 'tests=false', '--', process.execPath, agent]);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('gatehouse: '));
    const refused = lines.filter((l) => l.startsWith('gatehouse: refused Write'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/^gatehouse: refused Write README\.md \(rule write\.[a-z_.]+\) — .+/);
    expect(lines).toContain('gatehouse: stop refused (evidence_producers) — the required check "tests" (false) exited with 1');
    expect(lines.some((l) => l.includes('src/ok.ts'))).toBe(false);
  });

  it('prints a call waiting for a person with the command that answers it', async () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'approvals:\n  interactive: true\n');
    const agent = agentScript([{ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm publish' } }], 0);
    const child = spawn(process.execPath, [CLI, 'run', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--', process.execPath, agent], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise((r) => child.on('exit', r));
    for (let i = 0; i < 400 && !stderr.includes('waiting for a person'); i++) await new Promise((r) => setTimeout(r, 25));
    const id = new ApprovalQueue(state).list()[0]?.id as string;
    expect(stderr).toContain(`gatehouse: waiting for a person: Bash: npm publish — answer with \`gatehouse approve ${id}\``);
    const answered = gatehouse(['approve', id, '--deny', '--reason', 'not today', '--state-dir', state, '--worktree', root]);
    expect(answered.status, answered.stderr).toBe(0);
    await exited;
    expect(stderr).toMatch(/gatehouse: approval rejected for Bash by os-user:[^\s]+ — not today/);
  });
});

describe('gatehouse run progress, against a broken log', () => {
  it('finishes its run, verdict and hook removal included, when the audit log is swapped for a FIFO or grows a line with no end', () => {
    const agent = join(root, '..', 'break-log.cjs');
    writeFileSync(
      agent,
      `const fs = require('fs'); const { execSync } = require('child_process');
const log = ${JSON.stringify(join(state, 'audit', 'log.jsonl'))};
fs.mkdirSync(require('path').dirname(log), { recursive: true });
fs.appendFileSync(log, 'x'.repeat(3 * 1024 * 1024));
setTimeout(() => { fs.rmSync(log, { force: true }); execSync('mkfifo ' + log); }, 700);
setTimeout(() => {}, 1500);
`,
    );
    const r = gatehouse(['run', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--', process.execPath, agent]);
    expect(r.stderr).toMatch(/gatehouse: session \S+ (PASSED|FAILED|could not be checked)/);
    expect(r.stderr).not.toMatch(/RangeError|ERR_/);
    const settings = join(root, '.claude', 'settings.local.json');
    expect(!existsSync(settings) || !readFileSync(settings, 'utf8').includes('--session')).toBe(true);
  });
});
