// The warm transport with the real Claude Code CLI: while `gatehouse serve` runs, the
// rendered hooks are decided by the supervisor, and they refuse the same things.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { startServe, warmCalls, type Served } from '../support/serve.js';
import { claudeBinary, lastUserText, makeTempProject, runClaude, say, startStubModel, tool, toolResults, type StubModel, type TempProject } from './support/index.js';

/** Two real runs of about 1-3 s each; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 120_000;

let project: TempProject | undefined;
let stub: StubModel | undefined;
let served: Served | undefined;

afterEach(async () => {
  await stub?.close();
  await served?.stop();
  project?.dispose();
  stub = undefined;
  served = undefined;
  project = undefined;
});

describe.skipIf(!claudeBinary())('the warm transport under the real Claude Code', () => {
  it(
    'refuses an out-of-scope Write, lets an in-scope one land and holds the Stop until the check passes, decided by the supervisor',
    async () => {
      const p = makeTempProject();
      project = p;
      p.write('src/.keep', '');
      const state = join(p.dir, '..', `${p.dir.split('/').at(-1)}-state`);
      served = await startServe(p.dir, state);
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', p.dir, '--state-dir', state, '--allow', 'src/**', '--require', `unit=${check}`, '--transport', 'warm']);
      expect(started.status, started.stderr).toBe(0);
      const outside = p.path('package.json');
      const fixed = p.path('src/fixed.ts');
      stub = await startStubModel((req, i) => {
        if (i === 0) return tool('Write', { file_path: outside, content: '{}' });
        if (i === 1) return say('done');
        if (i === 2) return lastUserText(req.body).includes('FAIL: src/fixed.ts missing') ? tool('Write', { file_path: fixed, content: 'fixed\n' }) : say('no feedback seen');
        return say('fixed and done');
      });
      const run = await runClaude({ cwd: p.dir, prompt: 'do the task', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(toolResults(stub.turns[1]?.body)[0]?.text).toContain('package.json is outside this task');
      expect(readFileSync(fixed, 'utf8')).toBe('fixed\n');
      expect(run.messages.at(-1)).toMatchObject({ type: 'result', result: 'fixed and done' });
      // PreToolUse ×2 and Stop ×2 at least, all answered by the supervisor.
      expect(await warmCalls(served.url)).toBeGreaterThanOrEqual(4);
      gatehouse(['session', 'end', started.stdout.trim(), '--worktree', p.dir, '--state-dir', state]);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
