// The way back, with the real Claude Code: after an out-of-scope change the Stop refusal names
// how to undo it, and the gate lets exactly that undo through, so the agent can finish.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeBinary, lastUserText, runClaude, say, startStubModel, tool, toolResults, type StubModel } from './support/index.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';

/** A real run takes a few seconds; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 90_000;

const ORIGINAL = '{\n  "name": "demo"\n}\n';
/** A write the shell analysis cannot see (inline interpreter code): only the Stop check catches it. */
const UNSEEN_EDIT = `node -e "require('fs').appendFileSync('package.json', 'oops')"`;

let g: GatedProject;
let stub: StubModel | undefined;

beforeEach(() => {
  g = gatedProject();
  g.project.write('package.json', ORIGINAL);
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: g.project.dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  g.dispose();
});

describe.skipIf(!claudeBinary())('the way back is never blocked (real Claude Code)', () => {
  for (const restore of ['git checkout -- package.json', 'git restore package.json']) {
    it(
      `lets the agent undo an out-of-scope edit with \`${restore}\`, as the Stop refusal tells it to`,
      async () => {
        g.start('claude');
        stub = await startStubModel((req, i) => {
          if (i === 0) return tool('Bash', { command: UNSEEN_EDIT });
          if (i === 1) return say('done');
          if (i === 2) return lastUserText(req.body).includes('git checkout -- package.json') ? tool('Bash', { command: restore }) : say('no way back named');
          return say('restored');
        });
        const run = await runClaude({ cwd: g.project.dir, prompt: 'tidy up', model: stub });
        expect(run.exitCode, run.stderr).toBe(0);
        expect(stub.problems).toEqual([]);
        const [undo] = toolResults(stub.turns[3]?.body);
        expect(undo?.isError, undo?.text).toBe(false);
        expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'restored' });
        expect(readFileSync(g.project.path('package.json'), 'utf8')).toBe(ORIGINAL);
      },
      RUN_TEST_TIMEOUT_MS,
    );
  }

  it(
    'lets the agent write an out-of-scope file back to its content at the start with the Write tool',
    async () => {
      g.start('claude');
      stub = await startStubModel((req, i) => {
        if (i === 0) return tool('Bash', { command: UNSEEN_EDIT });
        if (i === 1) return say('done');
        if (i === 2) return lastUserText(req.body).includes('package.json') ? tool('Write', { file_path: g.project.path('package.json'), content: ORIGINAL }) : say('no feedback');
        return say('written back');
      });
      const run = await runClaude({ cwd: g.project.dir, prompt: 'tidy up', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      const [writeBack] = toolResults(stub.turns[3]?.body);
      expect(writeBack?.isError, writeBack?.text).toBe(false);
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'written back' });
      expect(readFileSync(g.project.path('package.json'), 'utf8')).toBe(ORIGINAL);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'still refuses a Write to an out-of-scope file that has not changed',
    async () => {
      g.start('claude');
      stub = await startStubModel([tool('Write', { file_path: g.project.path('package.json'), content: '{}' }), say('ok')]);
      const run = await runClaude({ cwd: g.project.dir, prompt: 'edit package.json', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      const [result] = toolResults(stub.turns[1]?.body);
      expect(result?.isError).toBe(true);
      expect(readFileSync(g.project.path('package.json'), 'utf8')).toBe(ORIGINAL);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
