// Gatehouse with the real Copilot CLI and a scripted OpenAI-compatible stub: `session start
// --agent copilot` trusts the folder the way Copilot's own prompt does and writes the
// session's `.github/hooks/gatehouse.json`; its preToolUse refuses writes outside the
// allowlist with the reason, its agentStop holds the turn while a required check fails, and
// `session end` undoes both exactly.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { say, tool } from './support/index.js';
import { copilotBinary, isCopilotTurn, runCopilot } from '../../src/runtime/doctor/run/copilot-run.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { messagesOf, startChatStub, type ChatStub } from '../../src/runtime/doctor/stub/openai-chat.js';

const RUN_TEST_TIMEOUT_MS = 150_000;

let g: GatedProject;
let home: string;
let stub: ChatStub | undefined;
let sessionId = '';

beforeEach(() => {
  g = gatedProject();
  home = mkdtempSync(join(tmpdir(), 'gh-copilot-home-'));
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  if (sessionId) end();
  g.dispose();
  rmSync(home, { recursive: true, force: true });
});

function start(extra: string[] = []): ReturnType<typeof gatehouse> {
  const r = gatehouse(['session', 'start', '--agent', 'copilot', '--worktree', g.project.dir, '--state-dir', g.state, '--allow', 'src/**', ...extra], { env: { COPILOT_HOME: home } });
  if (r.status === 0) sessionId = r.stdout.trim();
  return r;
}

function end(): ReturnType<typeof gatehouse> {
  const r = gatehouse(['session', 'end', sessionId, '--worktree', g.project.dir, '--state-dir', g.state], { env: { COPILOT_HOME: home } });
  sessionId = '';
  return r;
}

describe.skipIf(!copilotBinary())('Gatehouse gates the real Copilot CLI', () => {
  it(
    'refuses an out-of-scope create (absent, the model sees why) and lets an in-scope one land',
    async () => {
      expect(start().status).toBe(0);
      const outside = g.project.path('package.json');
      const inside = g.project.path('src/feature.ts');
      const script = [tool('create', { path: outside, file_text: '{}' }), tool('create', { path: inside, file_text: 'export const x = 1;\n' })];
      stub = await startChatStub((_req, i) => script[i] ?? say('done'), { isTurn: isCopilotTurn });
      const run = await runCopilot({ cwd: g.project.dir, prompt: 'do the task', model: stub, home });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(messagesOf(stub.turns[1], 'tool').join('\n')).toContain('package.json is outside this task');
      expect(readFileSync(inside, 'utf8')).toBe('export const x = 1;\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'holds the turn at agentStop while a required check fails and lets it end once it passes',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      expect(start(['--require', `unit=${check}`]).status).toBe(0);
      const fixed = g.project.path('src/fixed.ts');
      stub = await startChatStub(
        (req, i) => {
          if (i === 0) return say('done');
          if (i === 1) return JSON.stringify(req.body?.messages ?? []).includes('FAIL: src/fixed.ts missing') ? tool('create', { path: fixed, file_text: 'fixed\n' }) : say('no feedback seen');
          return say('fixed and done');
        },
        { isTurn: isCopilotTurn },
      );
      const run = await runCopilot({ cwd: g.project.dir, prompt: 'fix it', model: stub, home });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(fixed)).toBe(true);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});

describe('Copilot CLI folder trust and hooks file', () => {
  it('trusts the folder as Copilot would and leaves its config exactly as before after the session', () => {
    const config = join(home, 'config.json');
    const before = '// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  "firstLaunchAt": "2026-11-30T00:00:00.000Z",\n  "trusted_folders": ["/elsewhere"]\n}\n';
    writeFileSync(config, before);
    expect(start().status).toBe(0);
    const during = readFileSync(config, 'utf8');
    expect(during.startsWith('// User settings belong in settings.json.\n')).toBe(true);
    expect(JSON.parse(during.split('\n').slice(2).join('\n'))).toMatchObject({ trusted_folders: ['/elsewhere', g.project.dir] });
    const hooksFile = g.project.path('.github/hooks/gatehouse.json');
    expect(JSON.parse(readFileSync(hooksFile, 'utf8'))).toMatchObject({ version: 1, hooks: { preToolUse: [{ type: 'command' }], agentStop: [{ type: 'command' }] } });
    expect(end().status).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(before);
    expect(existsSync(hooksFile)).toBe(false);
    expect(existsSync(g.project.path('.github'))).toBe(false);
  });

  it('refuses a second session while the hooks file exists, and keeps a trusted parent as it is', () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ trusted_folders: [join(g.project.dir, '..')] }));
    const before = readFileSync(join(home, 'config.json'), 'utf8');
    expect(start().status).toBe(0);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe(before);
    const first = sessionId;
    const second = gatehouse(['session', 'start', '--agent', 'copilot', '--worktree', g.project.dir, '--state-dir', g.state, '--allow', 'src/**'], { env: { COPILOT_HOME: home } });
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain('already exists');
    sessionId = first;
  });
});
