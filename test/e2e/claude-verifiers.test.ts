// The Stop-side verifier chain and the tool-loop watchdog with the real Claude Code CLI
// and a scripted stub model.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatehouse } from '../support/cli.js';
import { claudeBinary, lastUserText, makeTempProject, runClaude, say, startStubModel, tool, toolResults, type StubModel, type TempProject } from './support/index.js';

/** A real run takes a few seconds; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 90_000;

/**
 * Claude Code 2.1.328 offers TodoWrite only to the older models (claude-sonnet-4-5 among them)
 * and only with its task tools switched off; otherwise the call comes back as a tool error.
 */
const WITH_TODO_WRITE = { args: ['--model', 'claude-sonnet-4-5'], env: { CLAUDE_CODE_ENABLE_TASKS: '0' } };

let project: TempProject;
let state: string;
let stub: StubModel | undefined;
let sessionId = '';

beforeEach(() => {
  project = makeTempProject();
  state = `${project.dir}-state`;
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  if (sessionId) gatehouse(['session', 'end', sessionId, '--worktree', project.dir, '--state-dir', state]);
  sessionId = '';
  project.dispose();
});

function startSession(config?: string): void {
  if (config) writeFileSync(join(project.dir, 'gatehouse.yaml'), config);
  const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', project.dir, '--state-dir', state]);
  expect(r.status, r.stderr).toBe(0);
  sessionId = r.stdout.trim();
}

describe.skipIf(!claudeBinary())('Gatehouse verifiers with the real Claude Code', () => {
  it(
    'blocks the Stop while a TodoWrite item is unfinished, and the next turn sees the list',
    async () => {
      startSession();
      const todos = (second: string) => [
        { content: 'Write the parser', status: 'completed', activeForm: 'Writing the parser' },
        { content: 'Add tests for the parser', status: second, activeForm: 'Adding tests' },
      ];
      stub = await startStubModel((req, i) => {
        if (i === 0) return tool('TodoWrite', { todos: todos('in_progress') });
        if (i === 1) return say('done');
        if (i === 2) return lastUserText(req.body).includes('Add tests for the parser (in progress)') ? tool('TodoWrite', { todos: todos('completed') }) : say('no list seen');
        return say('all items done');
      });
      const run = await runClaude({ cwd: project.dir, prompt: 'parser work', model: stub, ...WITH_TODO_WRITE });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(lastUserText(stub.turns[2]?.body)).toContain('Add tests for the parser (in progress)');
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'all items done' });
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'blocks the fifth of six identical tool calls',
    async () => {
      startSession();
      const call = tool('Bash', { command: 'echo same' });
      stub = await startStubModel((_req, i) => (i < 6 ? call : say('giving up on that')));
      const run = await runClaude({ cwd: project.dir, prompt: 'loop', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      const results = stub.turns.slice(1, 7).map((t) => toolResults(t.body)[0]);
      expect(results.map((r) => r?.isError)).toEqual([false, false, false, false, true, true]);
      expect(results[4]?.text).toMatch(/different approach/i);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'ends the run when a [[stop_hooks]] hook exits 3',
    async () => {
      startSession('stop_hooks:\n  - name: budget\n    command: "echo token budget exhausted; exit 3"\n');
      stub = await startStubModel((_req, i) => (i === 0 ? say('done') : say('should not be asked again')));
      const run = await runClaude({ cwd: project.dir, prompt: 'work', model: stub });
      expect(stub.turns).toHaveLength(1);
      // Claude Code 2.1.328 reports a hook's {"continue": false} as this terminal reason.
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', terminal_reason: 'stop_hook_prevented' });
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
