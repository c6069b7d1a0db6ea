// A failing required check does not hide a scope violation: through the real Stop hook and the
// real end of a session, every completion check runs, and the refusal names each one that failed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { gatehouse, HOOK, tempDir, testEnv } from '../support/cli.js';
import { runRenderedHook } from '../support/rendered-hook.js';

let root: string;
let state: string;
let id: string;

const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const stop = () => runRenderedHook(root, 'Stop', { hook_event_name: 'Stop', cwd: root, last_assistant_message: 'done', stop_hook_active: false });
/** A test that fails until src/fixed.txt exists. */
const TEST = `test=${process.execPath} -e "process.exit(require('fs').existsSync('src/fixed.txt') ? 0 : 1)"`;

beforeEach(async () => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"app"}\n');
  writeFileSync(join(root, 'src', 'x.ts'), 'export {};\n');
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
});

describe('a failing test and an out-of-scope change, together', () => {
  beforeEach(async () => {
    const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [TEST], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
    if (!r.ok) throw new Error(r.reason);
    id = r.value.policy.session_id;
    // The agent's work: the test still fails, and a file outside the allowlist changed.
    writeFileSync(join(root, 'package.json'), '{"name":"app","scripts":{"test":"true"}}\n');
  });

  it('are both named in the Stop hook’s refusal to the agent', () => {
    const r = stop();
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('2 checks refuse this stop (evidence_producers, scope_check)');
    expect(r.stderr).toContain('The required check "test"');
    expect(r.stderr).toContain('modified: package.json');
    expect(r.stderr).toContain('git checkout -- package.json');
  });

  it('are both reported by `session check`, with no stage skipped, in text and JSON', () => {
    const text = gatehouse(['session', 'check', id, '--worktree', root, '--state-dir', state]);
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/- the required check "test" .* exited with 1/);
    expect(text.stdout).toMatch(/- a file outside the task's allowed paths \(src\/\*\*\) changed/);
    expect(text.stdout).toContain('modified: package.json');
    const json = JSON.parse(gatehouse(['session', 'check', id, '--worktree', root, '--state-dir', state, '--json']).stdout) as {
      failed_checks: string[];
      verifiers: { name: string; outcome: string }[];
    };
    expect(json.failed_checks).toEqual(['evidence_producers', 'scope_check']);
    expect(json.verifiers.map((v) => [v.name, v.outcome])).toEqual([
      ['evidence_producers', 'block'],
      ['scope_check', 'block'],
    ]);
  });

  it('are both reported when the session ends, and only the scope once the test passes', () => {
    writeFileSync(join(root, 'src', 'fixed.txt'), 'x');
    expect(stop().stderr).not.toContain('evidence_producers');
    const ended = gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]);
    expect(ended.status).toBe(0);
    const check = gatehouse(['session', 'check', id, '--worktree', root, '--state-dir', state, '--json']);
    expect(JSON.parse(check.stdout)).toMatchObject({ passed: false, verdict: 'failed', failed_checks: ['scope_check'] });
  });
});

describe('gatehouse run with a failing test and an out-of-scope change', () => {
  it('names both in its FAILED verdict, in words for a person', () => {
    const r = gatehouse([
      'run',
      '--agent',
      'claude',
      '--worktree',
      root,
      '--state-dir',
      state,
      '--allow',
      'src/**',
      '--require',
      TEST,
      '--',
      process.execPath,
      '-e',
      "const fs = require('fs'); fs.writeFileSync('notes.txt', 'x'); fs.writeFileSync('package.json', '{}')",
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/FAILED the end-of-session check:\n {2}- the required check "test"/);
    expect(r.stderr).toMatch(/- 2 files outside the task's allowed paths/);
    expect(r.stderr).toContain('created: notes.txt');
    expect(r.stderr).toContain('modified: package.json');
    // The words written for the agent stay with the agent.
    expect(r.stderr).not.toContain('Fix the cause in the code');
    expect(r.stderr).not.toContain('Gatehouse will not let this task finish');
  });
});
