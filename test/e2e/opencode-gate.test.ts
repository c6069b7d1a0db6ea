// Gatehouse with the real OpenCode CLI and a scripted OpenAI-compatible stub: `session start
// --agent opencode` writes a plugin into .opencode/plugin/ whose tool.execute.before asks the
// session's gate; a write outside the allowlist is refused (absent, the model sees why), one
// inside lands; `session end` removes the plugin. OpenCode has no blocking stop surface.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatehouse } from '../support/cli.js';
import { say, tool } from './support/index.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { messagesOf, startChatStub, type ChatStub } from '../../src/runtime/doctor/stub/openai-chat.js';
import { isOpencodeTurn, opencodeBinary, runOpencode, writeOpencodeConfig } from '../../src/runtime/doctor/run/opencode-run.js';

const RUN_TEST_TIMEOUT_MS = 240_000;

let g: GatedProject;
let home: string;
let stub: ChatStub | undefined;

beforeEach(() => {
  g = gatedProject();
  home = mkdtempSync(join(tmpdir(), 'gh-opencode-home-'));
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  g.dispose();
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!opencodeBinary())('Gatehouse gates the real OpenCode', () => {
  it(
    'refuses an out-of-scope write through the generated plugin and lets an in-scope one land',
    async () => {
      const outside = g.project.path('package.json');
      const inside = g.project.path('src/feature.ts');
      const script = [tool('write', { filePath: outside, content: '{}' }), tool('write', { filePath: inside, content: 'export const x = 1;\n' })];
      stub = await startChatStub((_req, i) => script[i] ?? say('done'), { isTurn: isOpencodeTurn });
      writeOpencodeConfig(g.project.dir, stub.url);
      const started = gatehouse(['session', 'start', '--agent', 'opencode', '--worktree', g.project.dir, '--state-dir', g.state, '--allow', 'src/**']);
      expect(started.status, started.stderr).toBe(0);
      expect(started.stderr).toMatch(/completion_gate\s+none/);
      const run = await runOpencode({ cwd: g.project.dir, prompt: 'do the task', home });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(messagesOf(stub.turns[1], 'tool').join('\n')).toContain('package.json is outside this task');
      expect(readFileSync(inside, 'utf8')).toBe('export const x = 1;\n');
      const plugin = g.project.path('.opencode/plugin/gatehouse.js');
      expect(existsSync(plugin)).toBe(true);
      // OpenCode installs its plugin runtime into .opencode/ itself: not the model's work, so the
      // scope check passes (it used to fail every OpenCode session on thousands of created files).
      expect(existsSync(g.project.path('.opencode/node_modules'))).toBe(true);
      const checked = gatehouse(['session', 'check', started.stdout.trim(), '--worktree', g.project.dir, '--state-dir', g.state]);
      expect(checked.status, checked.stdout + checked.stderr).toBe(0);
      const ended = gatehouse(['session', 'end', started.stdout.trim(), '--worktree', g.project.dir, '--state-dir', g.state]);
      expect(ended.status, ended.stderr).toBe(0);
      expect(existsSync(plugin)).toBe(false);
      expect(existsSync(g.project.path('.opencode/.gitignore'))).toBe(false);
      const after = gatehouse(['session', 'check', started.stdout.trim(), '--worktree', g.project.dir, '--state-dir', g.state]);
      expect(after.status, after.stdout + after.stderr).toBe(0);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
