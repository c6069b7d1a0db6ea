// Gatehouse with the real Qwen Code CLI and a scripted OpenAI-compatible stub: the hooks
// `session start --agent qwen` renders into .qwen/settings.json refuse writes outside the
// allowlist and hold the Stop while a required check fails; removal restores the file.
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { say, tool } from './support/index.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { messagesOf, startChatStub, type ChatStub } from '../../src/runtime/doctor/stub/openai-chat.js';
import { isQwenTurn, qwenBinary, runQwen } from '../../src/runtime/doctor/run/qwen-run.js';

/** Two or three turns of 5-15 s runs; the margin covers a loaded two-core CI machine. */
const RUN_TEST_TIMEOUT_MS = 120_000;

let g: GatedProject;
let stub: ChatStub | undefined;

beforeEach(() => {
  g = gatedProject();
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  g.dispose();
});

const startSession = (extra: string[] = []): string => g.start('qwen', extra);

describe.skipIf(!qwenBinary())('Gatehouse gates the real Qwen Code', () => {
  it(
    'refuses an out-of-scope write_file (absent, the model sees why) and lets an in-scope one land',
    async () => {
      startSession();
      const outside = g.project.path('package.json');
      const inside = g.project.path('src/feature.ts');
      // After `done` the mutation-evidence nudge asks once for a check; `done` again ends the turn.
      const script = [tool('write_file', { file_path: outside, content: '{}' }), tool('write_file', { file_path: inside, content: 'export const x = 1;\n' })];
      stub = await startChatStub((_req, i) => script[i] ?? say('done'), { isTurn: isQwenTurn });
      const run = await runQwen({ cwd: g.project.dir, prompt: 'do the task', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(messagesOf(stub.turns[1], 'tool').join('\n')).toContain('package.json is outside this task');
      expect(readFileSync(inside, 'utf8')).toBe('export const x = 1;\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'blocks the Stop while a required check fails and lets it through once it passes',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      startSession(['--require', `unit=${check}`]);
      const fixed = g.project.path('src/fixed.ts');
      stub = await startChatStub(
        (req, i) => {
          if (i === 0) return say('done');
          if (i === 1) return JSON.stringify(req.body?.messages ?? []).includes('FAIL: src/fixed.ts missing') ? tool('write_file', { file_path: fixed, content: 'fixed\n' }) : say('no feedback seen');
          return say('fixed and done');
        },
        { isTurn: isQwenTurn },
      );
      const run = await runQwen({ cwd: g.project.dir, prompt: 'fix it', model: stub });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(JSON.stringify(stub.turns[1]?.body?.messages ?? [])).toContain('required check \\"unit\\"');
      expect(stub.turns).toHaveLength(3);
      expect(existsSync(fixed)).toBe(true);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it('leaves an existing .qwen/settings.json byte-identical after the session ends', () => {
    const original = '{\n  "model": { "name": "qwen3-coder-plus" },\r\n\t"hooks": {"Notification": []}   ,\n  "ui": {"theme":"dark"}\n}';
    const file = g.project.write('.qwen/settings.json', original);
    const id = startSession();
    expect(readFileSync(file, 'utf8')).toContain('PreToolUse');
    const ended = gatehouse(['session', 'end', id, '--worktree', g.project.dir, '--state-dir', g.state]);
    expect(ended.status, ended.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });
});
