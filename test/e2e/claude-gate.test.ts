// Gatehouse end to end with the real Claude Code CLI and a scripted stub model: the hooks
// rendered by `gatehouse session start` refuse writes and unverified completion in-session.
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { claudeBinary, lastUserText, runClaude, say, startStubModel, tool, toolResults, type StubModel } from './support/index.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';

/** A real run takes about 1-3 s; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 90_000;

let g: GatedProject;
let stub: StubModel | undefined;

beforeEach(() => {
  g = gatedProject();
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  g.dispose();
});

function startSession(extra: string[] = []): void {
  g.start('claude', extra);
}

describe.skipIf(!claudeBinary())('Gatehouse gates the real Claude Code', () => {
  it(
    'refuses an out-of-scope Write: the file does not exist and the model sees why',
    async () => {
      startSession();
      const target = g.project.path('package.json');
      stub = await startStubModel([tool('Write', { file_path: target, content: '{}' }), say('ok')]);
      const run = await runClaude({ cwd: g.project.dir, prompt: 'edit package.json', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(existsSync(target)).toBe(false);
      const [result] = toolResults(stub.turns[1]?.body);
      expect(result?.isError).toBe(true);
      expect(result?.text).toContain('package.json is outside this task');
      expect(result?.text).toContain('src/**');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'lets an in-scope Write land',
    async () => {
      startSession();
      const target = g.project.path('src/feature.ts');
      stub = await startStubModel([tool('Write', { file_path: target, content: 'export const x = 1;\n' }), say('done')]);
      const run = await runClaude({ cwd: g.project.dir, prompt: 'add a feature', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe('export const x = 1;\n');
      expect(toolResults(stub.turns[1]?.body)[0]?.isError).toBe(false);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'blocks the Stop while a required check fails and lets it through once it passes',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      startSession(['--require', `unit=${check}`]);
      const fixed = g.project.path('src/fixed.ts');
      stub = await startStubModel((req, i) => {
        if (i === 0) return say('done');
        if (i === 1) return lastUserText(req.body).includes('FAIL: src/fixed.ts missing') ? tool('Write', { file_path: fixed, content: 'fixed\n' }) : say('no feedback seen');
        return say('fixed and done');
      });
      const run = await runClaude({ cwd: g.project.dir, prompt: 'fix it', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(lastUserText(stub.turns[1]?.body)).toContain('required check "unit"');
      expect(stub.turns).toHaveLength(3);
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'fixed and done' });
      expect(existsSync(fixed)).toBe(true);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'blocks the Stop when a command wrote a file outside the allowlist unseen by the shell analysis, until it is undone',
    async () => {
      startSession();
      stub = await startStubModel((req, i) => {
        // An interpreter with inline code: the parser cannot see the write, the scope check can.
        if (i === 0) return tool('Bash', { command: `node -e "require('fs').writeFileSync('notes.txt','leaked')"` });
        if (i === 1) return say('done');
        if (i === 2) return lastUserText(req.body).includes('created: notes.txt') ? tool('Bash', { command: 'rm notes.txt' }) : say('no feedback seen');
        return say('cleaned up');
      });
      const run = await runClaude({ cwd: g.project.dir, prompt: 'take notes', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(lastUserText(stub.turns[2]?.body)).toContain('outside the task');
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'cleaned up' });
      expect(existsSync(g.project.path('notes.txt'))).toBe(false);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
