// The execution-list check with the real Claude Code CLI and a scripted stub model: the
// agent's task list counts only calls Claude Code accepted, whichever task tools it offers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatehouse } from '../support/cli.js';
import { claudeBinary, lastUserText, makeTempProject, runClaude, say, startStubModel, tool, toolResults, type RecordedRequest, type StubModel, type TempProject } from './support/index.js';

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

/** Claude Code 2.1.328 offers TaskCreate/TaskUpdate (by default) to the older models only. */
const WITH_TASK_TOOLS = { args: ['--model', 'claude-sonnet-4-5'] };

/** The task number in the answer to a TaskCreate, e.g. "Task #1 created successfully: …". */
function createdId(req: RecordedRequest | undefined): string {
  const m = /^Task #(\S+) created successfully/.exec(toolResults(req?.body)[0]?.text ?? '');
  if (!m) throw new Error('no TaskCreate answer in this turn');
  return m[1]!;
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

  it(
    'holds the stop while a TaskCreate task is open, and lets it go once a TaskUpdate completes it',
    async () => {
      let id = '';
      stub = await startStubModel((req, i) => {
        if (i === 0) return tool('TaskCreate', { subject: 'Add tests for the parser', description: 'Cover the date formats', activeForm: 'Adding tests' });
        if (i === 1) {
          id = createdId(req);
          return say('done');
        }
        // A TaskUpdate that finds no task changes nothing: the stop is refused again.
        if (i === 2) return lastUserText(req.body).includes(`#${id} Add tests for the parser`) ? tool('TaskUpdate', { taskId: '99', status: 'completed' }) : say('no list seen');
        if (i === 3) return say('done');
        if (i === 4) return lastUserText(req.body).includes('TaskUpdate') ? tool('TaskUpdate', { taskId: id, status: 'completed' }) : say('no way named');
        return say('all tasks done');
      });
      const run = await runClaude({ cwd: project.dir, prompt: 'parser work', model: stub, ...WITH_TASK_TOOLS });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(id).toBe('1');
      expect(toolResults(stub.turns[3]?.body)[0]).toMatchObject({ isError: false, text: expect.stringContaining('Task not found') });
      expect(toolResults(stub.turns[5]?.body)[0]).toMatchObject({ isError: false, text: expect.stringContaining(`Updated task #${id} status`) });
      expect(stub.turns).toHaveLength(6);
      expect(stopsSeen()).toBe(3);
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'all tasks done' });
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'lets the stop go once the open task is deleted',
    async () => {
      stub = await startStubModel((req, i) => {
        if (i === 0) return tool('TaskCreate', { subject: 'Try the old approach', description: 'Maybe' });
        if (i === 1) return say('done');
        if (i === 2) return tool('TaskUpdate', { taskId: '1', status: 'deleted' });
        return say(i === 3 ? 'dropped it' : 'asked again');
      });
      const run = await runClaude({ cwd: project.dir, prompt: 'work', model: stub, ...WITH_TASK_TOOLS });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(lastUserText(stub.turns[2]?.body)).toContain('#1 Try the old approach');
      expect(stub.turns).toHaveLength(4);
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'dropped it' });
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
