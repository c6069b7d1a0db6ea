// Proves the offline harness against the real Claude Code binary: a scripted write lands,
// a PreToolUse hook that exits 2 refuses it, and a Stop hook that exits 2 buys another turn.
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeBinary, lastUserText, makeTempProject, nodeCommand, runClaude, say, startStubModel, tool, toolResults, type StubModel, type TempProject } from './support/index.js';

/** A real run takes about 1 s; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 60_000;

let project: TempProject;
let stub: StubModel | undefined;

beforeEach(() => {
  project = makeTempProject();
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  project.dispose();
});

/** Writes a hook script that logs its stdin as one JSON line, then runs `body`. */
function hookScript(name: string, body: string): { command: string; log: string } {
  const log = project.path(`.claude/hooks/${name}.stdin.jsonl`);
  const script = project.write(
    `.claude/hooks/${name}.mjs`,
    [`import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';`, `appendFileSync(${JSON.stringify(log)}, readFileSync(0, 'utf8').trim() + '\\n');`, body].join('\n'),
  );
  return { command: nodeCommand(script), log };
}

function hookPayloads(log: string): Record<string, unknown>[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.skipIf(!claudeBinary())('offline harness for the real Claude Code', () => {
  it(
    'carries out a scripted Write and ends when the model says done',
    async () => {
      const target = project.path('hello.txt');
      stub = await startStubModel([tool('Write', { file_path: target, content: 'hello\n' }), say('done')]);

      const run = await runClaude({ cwd: project.dir, prompt: 'Create hello.txt', model: stub });

      expect(run.exitCode, run.stderr).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe('hello\n');
      expect(stub.problems).toEqual([]);
      expect(stub.turns).toHaveLength(2);
      expect(toolResults(stub.turns[1]?.body)).toEqual([expect.objectContaining({ isError: false })]);
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'done' });
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'refuses the Write when a PreToolUse hook exits 2, and tells the model the reason',
    async () => {
      const reason = 'Gatehouse: hello.txt is outside the write scope; write under src/ instead.';
      const hook = hookScript('deny-write', `process.stderr.write(${JSON.stringify(reason)});\nprocess.exit(2);`);
      project.claudeSettings({
        hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: hook.command }] }] },
      });
      const target = project.path('hello.txt');
      stub = await startStubModel([tool('Write', { file_path: target, content: 'hello\n' }), say('understood')]);

      const run = await runClaude({ cwd: project.dir, prompt: 'Create hello.txt', model: stub });

      expect(run.exitCode, run.stderr).toBe(0);
      expect(existsSync(target)).toBe(false);
      expect(stub.problems).toEqual([]);
      expect(stub.turns).toHaveLength(2);
      // The exact wording Claude Code 2.1.328 feeds the model on a blocking PreToolUse exit.
      expect(toolResults(stub.turns[1]?.body)).toEqual([{ toolUseId: expect.any(String), isError: true, text: `PreToolUse:Write hook error: [${hook.command}]: ${reason}` }]);
      expect(hookPayloads(hook.log)).toEqual([
        expect.objectContaining({
          hook_event_name: 'PreToolUse',
          tool_name: 'Write',
          tool_input: { file_path: target, content: 'hello\n' },
          cwd: project.dir,
        }),
      ]);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'gives the model another turn with the reason when a Stop hook exits 2, then lets it stop',
    async () => {
      const reason = 'Gatehouse: run the tests before you stop.';
      const counter = project.path('.claude/hooks/stop-count');
      const hook = hookScript(
        'stop-once',
        [
          `const counter = ${JSON.stringify(counter)};`,
          `const seen = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;`,
          `writeFileSync(counter, String(seen + 1));`,
          `if (seen === 0) { process.stderr.write(${JSON.stringify(reason)}); process.exit(2); }`,
        ].join('\n'),
      );
      project.claudeSettings({ hooks: { Stop: [{ hooks: [{ type: 'command', command: hook.command }] }] } });
      stub = await startStubModel((req, index) => {
        if (index === 0) return say('done');
        return lastUserText(req.body).includes(reason) ? say('tests pass; done') : say('no feedback seen');
      });

      const run = await runClaude({ cwd: project.dir, prompt: 'Finish up', model: stub });

      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(stub.turns).toHaveLength(2);
      expect(lastUserText(stub.turns[1]?.body)).toBe(`Stop hook feedback:\n[${hook.command}]: ${reason}`);
      expect(readFileSync(counter, 'utf8')).toBe('2');
      expect(hookPayloads(hook.log).map((p) => p.hook_event_name)).toEqual(['Stop', 'Stop']);
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'tests pass; done' });
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
