// Gatehouse with the real Gemini CLI inside the bubblewrap sandbox (`gatehouse run --sandbox`)
// and a scripted Gemini API stub: the BeforeTool and AfterAgent hooks reach the run through its
// socket and still gate writes and hold the turn while a required check fails, a shell write
// the gate cannot see is stopped by the read-only file system, and the signing key stays out of
// reach.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { sentText, startGeminiStub, type GeminiStub } from '../../src/runtime/doctor/stub/gemini-api.js';
import { geminiBinary, makeGeminiHome } from '../../src/runtime/doctor/run/gemini-run.js';
import { say, tool } from './support/index.js';
import { runSandboxed, sandboxAvailable, scratchHome } from './support/sandbox-run.js';

const RUN_TEST_TIMEOUT_MS = 120_000;
const bin = geminiBinary();

let g: GatedProject;
let scratch: ReturnType<typeof scratchHome>;
let stub: GeminiStub | undefined;

beforeEach(() => {
  g = gatedProject();
  scratch = scratchHome();
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  g.dispose();
  scratch.dispose();
});

/** `gatehouse run --sandbox --agent gemini … -- gemini -p …` with the stub as Gemini's model. */
async function runGeminiSandboxed(prompt: string, flags: string[]): Promise<Awaited<ReturnType<typeof runSandboxed>>> {
  if (bin === null || stub === undefined) throw new Error('no Gemini CLI or no stub');
  makeGeminiHome(scratch.home);
  return runSandboxed({
    agent: 'gemini',
    worktree: g.project.dir,
    state: g.state,
    home: scratch.home,
    flags,
    argv: [bin, '-p', prompt, '--yolo', '-m', 'gemini-2.5-pro', '--output-format', 'stream-json'],
    env: { GEMINI_CLI_HOME: scratch.home, GOOGLE_GEMINI_BASE_URL: stub.url, GEMINI_API_KEY: 'test' },
    timeoutMs: 90_000,
  });
}

describe.skipIf(bin === null || !sandboxAvailable())('Gatehouse gates the real Gemini CLI inside the sandbox', () => {
  it(
    'lets a write inside the allowlist land and refuses one outside it with the gate’s reason',
    async () => {
      const outside = g.project.path('package.json');
      const inside = g.project.path('src/feature.ts');
      const script = [tool('write_file', { file_path: outside, content: '{}' }), tool('write_file', { file_path: inside, content: 'export const x = 1;\n' })];
      stub = await startGeminiStub((_req, i) => script[i] ?? say('done'));
      const run = await runGeminiSandboxed('do the task', ['--allow', 'src/**']);
      expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(sentText(stub.turns[1])).toContain('package.json is outside this task');
      expect(sentText(stub.turns[1])).not.toContain('cannot be reached');
      expect(readFileSync(inside, 'utf8')).toBe('export const x = 1;\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'holds the turn while a required check fails, with its output, and lets it end once the model fixes it',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      const fixed = g.project.path('src/fixed.ts');
      stub = await startGeminiStub((req, i) => {
        if (i === 0) return say('done');
        if (i === 1) return sentText(req).includes('FAIL: src/fixed.ts missing') ? tool('write_file', { file_path: fixed, content: 'fixed\n' }) : say('no feedback seen');
        return say('fixed and done');
      });
      const run = await runGeminiSandboxed('fix it', ['--allow', 'src/**', '--require', `test=${check}`]);
      expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(sentText(stub.turns[1])).toContain('required check');
      expect(sentText(stub.turns[1])).toContain('FAIL: src/fixed.ts missing');
      expect(existsSync(fixed)).toBe(true);
      expect(run.stderr).toContain('PASSED');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'stops a shell write outside the folder-shaped allowlist that the gate cannot see as a write: the file system is read-only there',
    async () => {
      g.project.write('README.md', 'readme\n');
      const write = shellJoin(['python3', '-c', "open('README.md','w').write('x')"]);
      stub = await startGeminiStub((_req, i) => (i === 0 ? tool('run_shell_command', { command: write }) : say('done')));
      await runGeminiSandboxed('do the task', ['--allow', 'src/**']);
      expect(stub.problems).toEqual([]);
      expect(sentText(stub.turns[1])).toContain('Read-only file system');
      expect(readFileSync(g.project.path('README.md'), 'utf8')).toBe('readme\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'keeps the project’s signing key out of reach of the agent’s shell',
    async () => {
      const keys = gatehouse(['keys', 'show', '--worktree', g.project.dir, '--state-dir', g.state]);
      expect(keys.status, keys.stderr).toBe(0);
      const keyFile = join(g.state, 'keys', readdirSync(join(g.state, 'keys')).find((f) => f.endsWith('.key.pem')) ?? 'missing');
      const key = readFileSync(keyFile, 'utf8');
      const read = shellJoin(['python3', '-c', `print(open(${JSON.stringify(keyFile)}).read())`]);
      stub = await startGeminiStub((_req, i) => (i === 0 ? tool('run_shell_command', { command: read }) : say('done')));
      await runGeminiSandboxed('do the task', ['--allow', 'src/**']);
      expect(stub.problems).toEqual([]);
      expect(sentText(stub.turns[1])).toMatch(/No such file or directory|Permission denied/);
      const body = key.split('\n')[1] ?? key;
      for (const t of stub.turns) expect(sentText(t)).not.toContain(body);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'keeps the settings file holding the hooks read-only, and Gemini still runs, when the whole worktree is writable',
    async () => {
      expect(existsSync(g.project.path('.gemini'))).toBe(false);
      const write = shellJoin(['python3', '-c', "open('.gemini/settings.json','w').write('{}')"]);
      let settingsDuring = '';
      stub = await startGeminiStub((_req, i) => {
        if (i === 0) return tool('run_shell_command', { command: write });
        if (i === 1) settingsDuring = readFileSync(g.project.path('.gemini/settings.json'), 'utf8');
        return say('done');
      });
      const run = await runGeminiSandboxed('do the task', []);
      expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(sentText(stub.turns[1])).toContain('Read-only file system');
      expect(settingsDuring).toContain('BeforeTool');
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
