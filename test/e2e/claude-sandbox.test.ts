// The real Claude Code CLI under `gatehouse run --sandbox`: its hooks reach the run through
// the socket and still gate, and bubblewrap stops what the hooks cannot see or no longer answer.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { claudeBinary, lastUserText, makeTempProject, say, startStubModel, tool, toolResults, type StubModel, type TempProject } from './support/index.js';
import { runSandboxed, sandboxAvailable, scratchHome } from './support/sandbox-run.js';
import type { AgentProcessRun } from '../../src/runtime/doctor/run/agent-process.js';

/** A sandboxed run takes a few seconds; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 90_000;
/** The whole `gatehouse run` under the test's limit, so a hang fails the test with the run's output. */
const RUN_TIMEOUT_MS = 75_000;
/** How often the kill test looks for the agent's sign that its command is running. */
const POLL_MS = 50;
/** How long the sandbox of a killed run may take to exit after its agent did. */
const SANDBOX_EXIT_MS = 10_000;

/** What a sandboxed hook says when `gatehouse run` is gone (src/gateway/hook-socket.ts). */
const UNREACHABLE = 'supervisor of this sandboxed session cannot be reached';

let project: TempProject;
let h: { home: string; dispose(): void };
/** Holds the state folder outside /tmp: inside the sandbox /tmp is private, which alone would hide it. */
let stateRoot: string;
let state: string;
let stub: StubModel | undefined;
/** Processes a test must not leave behind (the sandbox of a killed `gatehouse run`), by process group. */
let leftovers: number[] = [];

beforeEach(() => {
  project = makeTempProject('gh-e2e-sbx-');
  project.write('src/.keep', '');
  h = scratchHome();
  stateRoot = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'gh-sbx-state-'));
  state = join(stateRoot, 'state');
});

afterEach(async () => {
  for (const pgid of leftovers) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  leftovers = [];
  await stub?.close();
  stub = undefined;
  project.dispose();
  h.dispose();
  rmSync(stateRoot, { recursive: true, force: true });
});

function sandboxed(flags: string[], opts: { onSpawn?: (pid: number) => void; env?: Record<string, string> } = {}): Promise<AgentProcessRun> {
  const model = stub!;
  return runSandboxed({
    agent: 'claude',
    worktree: project.dir,
    state,
    home: h.home,
    flags,
    argv: [claudeBinary()!, '-p', 'do the task', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions'],
    env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', IS_SANDBOX: '1', ...opts.env },
    timeoutMs: RUN_TIMEOUT_MS,
    ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}),
  });
}

/** A Bash command running inline Node code: the shell analysis cannot see what it writes, so only the OS stops it. */
function nodeBash(code: string): string {
  return shellJoin([process.execPath, '-e', code]);
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: project.dir, encoding: 'utf8' });
}

/** Claude Code's closing `result` line of its stream-json output. */
function resultMessage(stdout: string): unknown {
  const line = stdout
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"type":"result"'))
    .at(-1);
  return line === undefined ? null : JSON.parse(line);
}

/** True while `pid` exists and is not a zombie. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The direct children of `pid` (from /proc), or none once it is gone. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function until(cond: () => boolean, what: string, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

describe.skipIf(!claudeBinary() || !sandboxAvailable())('the real Claude Code in a sandboxed run', () => {
  it(
    'lets an in-scope Write land and refuses an out-of-scope one with the gate reason',
    async () => {
      const inside = project.path('src/a.ts');
      const outside = project.path('package.json');
      // Every later turn says done: the Stop may first remind the agent to check its change.
      stub = await startStubModel((_req, i) =>
        i === 0 ? tool('Write', { file_path: inside, content: 'export const a = 1;\n' }) : i === 1 ? tool('Write', { file_path: outside, content: '{}' }) : say('done'),
      );
      const run = await sandboxed(['--allow', 'src/**']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(readFileSync(inside, 'utf8')).toBe('export const a = 1;\n');
      expect(toolResults(stub.turns[1]?.body)[0]?.isError).toBe(false);
      const [refused] = toolResults(stub.turns[2]?.body);
      expect(refused?.isError).toBe(true);
      expect(refused?.text).toContain('package.json is outside this task');
      expect(refused?.text).not.toContain(UNREACHABLE);
      expect(existsSync(outside)).toBe(false);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'holds the Stop while a required check run in the sandbox fails, and passes once the model fixes it',
    async () => {
      // Outside the sandbox the probe lands in the worktree root; inside, the root is read-only.
      const check = shellJoin(['sh', '-c', 'if touch check-probe 2>/dev/null; then echo "check ran unsandboxed"; exit 1; fi; test -e src/fixed || { echo "FAIL: src/fixed missing"; exit 1; }']);
      const fixed = project.path('src/fixed');
      stub = await startStubModel((req, i) => {
        if (i === 0) return say('done');
        if (i === 1) return lastUserText(req.body).includes('FAIL: src/fixed missing') ? tool('Write', { file_path: fixed, content: 'fixed\n' }) : say('no feedback seen');
        return say('fixed and done');
      });
      const run = await sandboxed(['--allow', 'src/**', '--require', `test=${check}`]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(lastUserText(stub.turns[1]?.body)).toContain('required check "test"');
      expect(stub.turns).toHaveLength(3);
      expect(readFileSync(fixed, 'utf8')).toBe('fixed\n');
      expect(run.stderr).toContain('PASSED');
      expect(existsSync(project.path('check-probe'))).toBe(false);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'stops a write outside a folder allowlist that the shell analysis cannot see: read-only file system',
    async () => {
      project.write('README.md', 'original\n');
      const code = "const fs = require('fs'); for (const f of ['README.md', 'notes.txt']) { try { fs.writeFileSync(f, 'x'); console.log('wrote ' + f); } catch (e) { console.log(e.message); } }";
      stub = await startStubModel([tool('Bash', { command: nodeBash(code) }), say('done')]);
      const run = await sandboxed(['--allow', 'src/**']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      const text = toolResults(stub.turns[1]?.body)[0]?.text ?? '';
      expect(text).toMatch(/EROFS: read-only file system, open 'README\.md'/);
      expect(text).toMatch(/EROFS: read-only file system, open 'notes\.txt'/);
      expect(text).not.toContain('wrote');
      expect(readFileSync(project.path('README.md'), 'utf8')).toBe('original\n');
      expect(existsSync(project.path('notes.txt'))).toBe(false);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'hides the signing key and the access token from the agent',
    async () => {
      const keys = gatehouse(['keys', 'show', '--worktree', project.dir, '--state-dir', state], { env: { HOME: h.home } });
      expect(keys.status, keys.stderr).toBe(0);
      const keyFile = join(state, 'keys', 'ed25519.key.pem');
      const tokenFile = join(state, 'gateway', 'access-token');
      mkdirSync(join(state, 'gateway'), { recursive: true });
      writeFileSync(tokenFile, 'gh-access-token-sentinel\n', { mode: 0o600 });
      // Beside the state, outside it: readable in the sandbox, so the hiding is what keeps the others out.
      const control = join(stateRoot, 'control.txt');
      writeFileSync(control, 'control-sentinel\n', { mode: 0o600 });
      expect(readFileSync(keyFile, 'utf8')).toContain('PRIVATE KEY');
      stub = await startStubModel([tool('Bash', { command: `cat ${control}; cat ${keyFile}; cat ${tokenFile}` }), say('done')]);
      const run = await sandboxed(['--allow', 'src/**']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      const text = toolResults(stub.turns[1]?.body)[0]?.text ?? '';
      expect(text).toContain('control-sentinel');
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain('gh-access-token-sentinel');
      expect(text).toContain(`cat: ${keyFile}: No such file or directory`);
      expect(text).toContain(`cat: ${tokenFile}: No such file or directory`);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'keeps the git control files read-only while commits still work',
    async () => {
      git('init', '-q');
      git('config', 'user.name', 'Sandbox Test');
      git('config', 'user.email', 'sandbox@example.com');
      git('add', '-A');
      git('commit', '-q', '-m', 'start');
      const configBefore = readFileSync(project.path('.git/config'), 'utf8');
      const hooksBefore = readdirSync(project.path('.git/hooks')).sort();
      const headBefore = git('rev-parse', 'HEAD').trim();
      stub = await startStubModel([
        tool('Bash', { command: nodeBash("require('child_process').execFileSync('git', ['config', 'core.hooksPath', '/tmp/x'], { stdio: 'inherit' })") }),
        tool('Bash', { command: nodeBash("require('fs').writeFileSync('.git/hooks/x', '#!/bin/sh\\n')") }),
        tool('Write', { file_path: project.path('src/b.ts'), content: 'export const b = 2;\n' }),
        tool('Bash', { command: 'git add src/b.ts && git commit -q -m "add b" && git log --oneline -1' }),
        say('done'),
      ]);
      const run = await sandboxed(['--allow', 'src/**']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      const config = toolResults(stub.turns[1]?.body)[0];
      expect(config?.text).toMatch(/could not (write|lock) config file \.git\/config: (Device or resource busy|Read-only file system)/);
      const hook = toolResults(stub.turns[2]?.body)[0];
      expect(hook?.text).toMatch(/EROFS: read-only file system/);
      const commit = toolResults(stub.turns[4]?.body)[0];
      expect(commit?.isError, commit?.text).toBe(false);
      expect(commit?.text).toContain('add b');
      expect(readFileSync(project.path('.git/config'), 'utf8')).toBe(configBefore);
      expect(existsSync(project.path('.git/hooks/x'))).toBe(false);
      expect(readdirSync(project.path('.git/hooks')).sort()).toEqual(hooksBefore);
      expect(git('rev-parse', 'HEAD~1').trim()).toBe(headBefore);
      expect(git('log', '-1', '--format=%s').trim()).toBe('add b');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'refuses the next tool call once gatehouse run is killed, and the Stop halts the agent',
    async () => {
      const after = project.path('src/after.ts');
      // The agent says when its command runs, then waits for the test to have killed the supervisor.
      const wait = 'touch src/started && until [ -e src/resume ]; do sleep 0.1; done';
      stub = await startStubModel([tool('Bash', { command: wait }), tool('Write', { file_path: after, content: 'late\n' }), say('done')]);
      let supervisor = 0;
      // A killed run cannot remove its socket folder: it goes into the scratch folder, removed after the test.
      const scratchTmp = join(dirname(h.home), 'tmp');
      mkdirSync(scratchTmp);
      const running = sandboxed(['--allow', 'src/**'], {
        env: { TMPDIR: scratchTmp },
        onSpawn: (pid) => {
          supervisor = pid;
          leftovers.push(pid);
        },
      });
      await until(() => existsSync(project.path('src/started')), 'the agent to start its command', RUN_TIMEOUT_MS);
      // bwrap runs in a process group of its own: remember it before its parent is gone.
      for (const child of childrenOf(supervisor)) leftovers.push(child);
      process.kill(supervisor, 'SIGKILL');
      await until(() => !isRunning(supervisor), 'gatehouse run to die', RUN_TIMEOUT_MS);
      writeFileSync(project.path('src/resume'), '');
      const run = await running;
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.signal).toBe('SIGKILL');
      expect(stub.problems).toEqual([]);
      const [refused] = toolResults(stub.turns[2]?.body);
      expect(refused?.isError).toBe(true);
      expect(refused?.text).toContain(UNREACHABLE);
      expect(existsSync(after)).toBe(false);
      // The Stop refusal halted the agent (no further turn), and the sandbox went with it.
      expect(stub.turns).toHaveLength(3);
      expect(resultMessage(run.stdout)).toMatchObject({ type: 'result', terminal_reason: 'stop_hook_prevented' });
      // The agent's output closes a moment before bwrap, its parent, has exited: give the sandbox a few seconds to go.
      const sandbox = leftovers.filter((p) => p !== supervisor);
      await until(() => !sandbox.some(isRunning), `the sandbox (${sandbox.join(', ')}) to exit`, SANDBOX_EXIT_MS);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
