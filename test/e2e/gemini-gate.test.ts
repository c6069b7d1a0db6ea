// Gatehouse with the real Gemini CLI and a scripted Gemini API stub: `session start --agent
// gemini` trusts the folder the way Gemini's own dialog does and renders BeforeTool and
// AfterAgent hooks into .gemini/settings.json; they refuse writes outside the allowlist and
// make the agent retry while a required check fails; `session end` undoes both exactly.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { say, tool } from './support/index.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { sentText, startGeminiStub, type GeminiStub } from '../../src/runtime/doctor/stub/gemini-api.js';
import { geminiBinary, makeGeminiHome, runGemini } from '../../src/runtime/doctor/run/gemini-run.js';

const RUN_TEST_TIMEOUT_MS = 120_000;

let g: GatedProject;
let home: string;
let stub: GeminiStub | undefined;
let sessionId = '';

beforeEach(() => {
  g = gatedProject();
  home = makeGeminiHome(mkdtempSync(join(tmpdir(), 'gh-gemini-home-')));
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  if (sessionId) gatehouse(['session', 'end', sessionId, '--worktree', g.project.dir, '--state-dir', g.state], { env: { GEMINI_CLI_HOME: home } });
  sessionId = '';
  g.dispose();
  rmSync(home, { recursive: true, force: true });
});

function start(extra: string[] = []): ReturnType<typeof gatehouse> {
  const r = gatehouse(['session', 'start', '--agent', 'gemini', '--worktree', g.project.dir, '--state-dir', g.state, '--allow', 'src/**', ...extra], { env: { GEMINI_CLI_HOME: home } });
  if (r.status === 0) sessionId = r.stdout.trim();
  return r;
}

const trustFile = (): string => join(home, '.gemini', 'trustedFolders.json');

describe.skipIf(!geminiBinary())('Gatehouse gates the real Gemini CLI', () => {
  it(
    'refuses an out-of-scope write_file (absent, the model sees why) and lets an in-scope one land',
    async () => {
      expect(start().status).toBe(0);
      const outside = g.project.path('package.json');
      const inside = g.project.path('src/feature.ts');
      const script = [tool('write_file', { file_path: outside, content: '{}' }), tool('write_file', { file_path: inside, content: 'export const x = 1;\n' })];
      // After `done` the mutation-evidence nudge asks once for a check; `done` again ends the turn.
      stub = await startGeminiStub((_req, i) => script[i] ?? say('done'));
      const run = await runGemini({ cwd: g.project.dir, prompt: 'do the task', model: stub, home });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(sentText(stub.turns[1])).toContain('package.json is outside this task');
      expect(readFileSync(inside, 'utf8')).toBe('export const x = 1;\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'makes the agent retry while a required check fails and lets it finish once it passes',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      expect(start(['--require', `unit=${check}`]).status).toBe(0);
      const fixed = g.project.path('src/fixed.ts');
      stub = await startGeminiStub((req, i) => {
        if (i === 0) return say('done');
        if (i === 1) return sentText(req).includes('FAIL: src/fixed.ts missing') ? tool('write_file', { file_path: fixed, content: 'fixed\n' }) : say('no feedback seen');
        return say('fixed and done');
      });
      const run = await runGemini({ cwd: g.project.dir, prompt: 'fix it', model: stub, home });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(sentText(stub.turns[1])).toContain('required check');
      expect(existsSync(fixed)).toBe(true);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});

describe('Gemini CLI folder trust and settings', () => {
  it('trusts the folder as Gemini would and leaves the trust file and settings byte-identical after the session', () => {
    const trustBefore = '{\n  "/some/other/project": "TRUST_FOLDER"\n}';
    writeFileSync(trustFile(), trustBefore);
    const settingsBefore = '{"model": {"name": "gemini-2.5-pro"},\r\n  "hooks": {"Notification": []}}';
    const settings = g.project.write('.gemini/settings.json', settingsBefore);
    expect(start().status).toBe(0);
    expect(JSON.parse(readFileSync(trustFile(), 'utf8'))).toMatchObject({ '/some/other/project': 'TRUST_FOLDER', [g.project.dir]: 'TRUST_FOLDER' });
    const rendered = JSON.parse(readFileSync(settings, 'utf8')) as { hooks: Record<string, { hooks: { timeout: number }[] }[]> };
    expect(Object.keys(rendered.hooks)).toEqual(expect.arrayContaining(['BeforeTool', 'AfterAgent']));
    // Gemini's timeouts are milliseconds.
    expect(rendered.hooks['BeforeTool']![0]!.hooks[0]!.timeout).toBe(60_000);
    const ended = gatehouse(['session', 'end', sessionId, '--worktree', g.project.dir, '--state-dir', g.state], { env: { GEMINI_CLI_HOME: home } });
    expect(ended.status, ended.stderr).toBe(0);
    sessionId = '';
    expect(readFileSync(trustFile(), 'utf8')).toBe(trustBefore);
    expect(readFileSync(settings, 'utf8')).toBe(settingsBefore);
  });

  it('adds nothing when the folder is trusted already, and refuses a folder the user chose not to trust', () => {
    writeFileSync(trustFile(), JSON.stringify({ [g.project.dir]: 'TRUST_FOLDER' }));
    const before = readFileSync(trustFile(), 'utf8');
    expect(start().status).toBe(0);
    expect(readFileSync(trustFile(), 'utf8')).toBe(before);
    gatehouse(['session', 'end', sessionId, '--worktree', g.project.dir, '--state-dir', g.state], { env: { GEMINI_CLI_HOME: home } });
    sessionId = '';
    expect(readFileSync(trustFile(), 'utf8')).toBe(before);

    writeFileSync(trustFile(), JSON.stringify({ [g.project.dir]: 'DO_NOT_TRUST' }));
    const refused = start();
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('told not to trust');
    expect(existsSync(g.project.path('.gemini/settings.json'))).toBe(false);
  });
});
