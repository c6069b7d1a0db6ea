// The execution-list check with the real Claude Code CLI and a scripted stub model: the
// agent's task list counts only calls Claude Code accepted, whichever task tools it offers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatehouse } from '../support/cli.js';
import { claudeBinary, makeTempProject, runClaude, say, startStubModel, tool, toolResults, type StubModel, type TempProject } from './support/index.js';

/** A real run takes a few seconds; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 90_000;

let project: TempProject;
let state: string;
let stub: StubModel | undefined;
let sessionId = '';

beforeEach(() => {
  project = makeTempProject();
  state = `${project.dir}-state`;
  project.write('src/.keep', '');
  const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', project.dir, '--state-dir', state, '--allow', 'src/**']);
  expect(r.status, r.stderr).toBe(0);
  sessionId = r.stdout.trim();
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  gatehouse(['session', 'end', sessionId, '--worktree', project.dir, '--state-dir', state]);
  project.dispose();
});

/** The Stop events the session's hook has judged so far. */
function stopsSeen(): number {
  return (JSON.parse(readFileSync(join(state, 'sessions', sessionId, 'turn-state.json'), 'utf8')) as { stops: number }).stops;
}

const openTodos = [
  { content: 'Write the parser', status: 'completed', activeForm: 'Writing the parser' },
  { content: 'Add tests for the parser', status: 'in_progress', activeForm: 'Adding tests' },
];

describe.skipIf(!claudeBinary())('the agent task list with the real Claude Code', () => {
  it(
    'lets the run end when Claude Code refused the TodoWrite (the default model has the tool off)',
    async () => {
      stub = await startStubModel((_req, i) => (i === 0 ? tool('TodoWrite', { todos: openTodos }) : i === 1 ? say('done') : say('asked again')));
      const run = await runClaude({ cwd: project.dir, prompt: 'parser work', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      const [refused] = toolResults(stub.turns[1]?.body);
      expect(refused).toMatchObject({ isError: true, text: expect.stringContaining('No such tool available: TodoWrite') });
      // The gated Stop ran once and let the turn end: no feedback turn.
      expect(stub.turns).toHaveLength(2);
      expect(stopsSeen()).toBe(1);
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'done' });
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
