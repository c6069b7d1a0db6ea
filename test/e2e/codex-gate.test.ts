// Gatehouse with the real Codex CLI and a scripted Responses-API stub: `session start --agent
// codex` renders hooks into .codex/hooks.json and trusts them through `codex app-server`, so a
// plain `codex exec` (no trust override) runs them; every path of an apply_patch is gated, the
// Stop hook holds the turn while a required check fails, and `session end` leaves Codex's
// config and the project's hooks file byte-identical.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { say, tool } from './support/index.js';
import { codexBinary, makeCodexHome, runCodex } from '../../src/runtime/doctor/run/codex-run.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { addFilePatch, hookPrompts, startResponsesStub, toolOutputs, type ResponsesStub } from '../../src/runtime/doctor/stub/responses-api.js';

const RUN_TEST_TIMEOUT_MS = 120_000;
const bin = codexBinary();

let g: GatedProject;
let home: string;
let stub: ResponsesStub | undefined;
let sessionId = '';

beforeEach(() => {
  g = gatedProject();
  home = mkdtempSync(join(tmpdir(), 'gh-codex-home-'));
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  if (sessionId) gatehouse(['session', 'end', sessionId, '--worktree', g.project.dir, '--state-dir', g.state], { env: codexEnv() });
  sessionId = '';
  g.dispose();
  rmSync(home, { recursive: true, force: true });
});

function codexEnv(): NodeJS.ProcessEnv {
  return { CODEX_HOME: home, GATEHOUSE_CODEX_BIN: bin ?? '' };
}

function start(extra: string[] = [], env: NodeJS.ProcessEnv = codexEnv()): ReturnType<typeof gatehouse> {
  const r = gatehouse(['session', 'start', '--agent', 'codex', '--worktree', g.project.dir, '--state-dir', g.state, '--allow', 'src/**', ...extra], { env });
  if (r.status === 0) sessionId = r.stdout.trim();
  return r;
}

/** A patch that updates `from` and renames it to `to`. */
function movePatch(from: string, to: string): string {
  return ['*** Begin Patch', `*** Update File: ${from}`, `*** Move to: ${to}`, '@@', '-old', '+new', '*** End Patch', ''].join('\n');
}

describe.skipIf(bin === null)('Gatehouse gates the real Codex CLI', () => {
  it(
    'refuses a patch with any path outside the allowlist (nothing written, the model told why) and applies one inside it',
    async () => {
      g.project.write('src/old.ts', 'old\n');
      const script = [
        tool('apply_patch', addFilePatch('package.json', '{}')),
        // One path inside, one outside: the whole patch is refused, the inside file untouched too.
        tool('apply_patch', `${addFilePatch('src/a.ts', 'a').replace('*** End Patch\n', '')}*** Add File: README.md\n+readme\n*** End Patch\n`),
        tool('apply_patch', movePatch('src/old.ts', 'lib/old.ts')),
        // The same patch run as a command: Codex applies `apply_patch <<'EOF'` itself.
        tool('exec_command', { cmd: `apply_patch <<'EOF'\n${addFilePatch('package.json', '{}')}EOF\n` }),
        tool('apply_patch', addFilePatch('src/feature.ts', 'export const x = 1;')),
      ];
      stub = await startResponsesStub((_req, i) => script[i] ?? say('done'));
      makeCodexHome(home, stub.url);
      const started = start();
      expect(started.status, started.stderr).toBe(0);
      const run = await runCodex({ cwd: g.project.dir, prompt: 'do the task', home });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(stub.problems).toEqual([]);
      for (const rel of ['package.json', 'src/a.ts', 'README.md', 'lib/old.ts']) expect(existsSync(g.project.path(rel)), rel).toBe(false);
      expect(readFileSync(g.project.path('src/old.ts'), 'utf8')).toBe('old\n');
      const outputs = toolOutputs(stub.turns[5]).map((o) => o.text);
      expect(outputs[0]).toContain('package.json is outside this task');
      expect(outputs[1]).toContain('README.md is outside this task');
      expect(outputs[2]).toContain('lib/old.ts is outside this task');
      expect(outputs[3]).toContain('package.json is outside this task');
      expect(readFileSync(g.project.path('src/feature.ts'), 'utf8')).toBe('export const x = 1;\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'holds the turn while a required check fails and lets it end once it passes',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      stub = await startResponsesStub((req, i) => {
        if (i === 0) return say('done');
        if (i === 1) return hookPrompts(req).some((p) => p.includes('FAIL: src/fixed.ts missing')) ? tool('apply_patch', addFilePatch('src/fixed.ts', 'fixed')) : say('no feedback seen');
        return say('fixed and done');
      });
      makeCodexHome(home, stub.url);
      const started = start(['--require', `unit=${check}`]);
      expect(started.status, started.stderr).toBe(0);
      const run = await runCodex({ cwd: g.project.dir, prompt: 'fix it', home });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(hookPrompts(stub.turns[1]).join('\n')).toContain('required check');
      expect(existsSync(g.project.path('src/fixed.ts'))).toBe(true);
      // The turn ended: the last request was answered with the final message, no Stop block after it.
      expect(stub.turns).toHaveLength(3);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});

describe.skipIf(bin === null)('Codex config and hook trust around a session', () => {
  it("leaves Codex's config.toml and the project's hooks file byte-identical after the session", async () => {
    const configBefore = readFileSync(join(makeCodexHome(home, 'http://127.0.0.1:9/v1'), 'config.toml'), 'utf8');
    const hooksBefore = '{\n  "hooks": {\n    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}]\n  }\n}\n';
    const hooksFile = g.project.write('.codex/hooks.json', hooksBefore);
    const started = start();
    expect(started.status, started.stderr).toBe(0);
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toContain('trusted_hash');
    // No PostToolUse: Codex's says nothing of failure (docs/agents.md).
    expect(Object.keys((JSON.parse(readFileSync(hooksFile, 'utf8')) as { hooks: object }).hooks)).toEqual(['PreToolUse', 'Stop']);
    const ended = gatehouse(['session', 'end', sessionId, '--worktree', g.project.dir, '--state-dir', g.state], { env: codexEnv() });
    expect(ended.status, ended.stderr).toBe(0);
    sessionId = '';
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toBe(configBefore);
    expect(readFileSync(hooksFile, 'utf8')).toBe(hooksBefore);
  });

  it('refuses a second session in the same worktree (Codex trusts hooks by position), changing nothing', () => {
    makeCodexHome(home, 'http://127.0.0.1:9/v1');
    expect(start().status).toBe(0);
    const first = sessionId;
    const hooks = readFileSync(g.project.path('.codex/hooks.json'), 'utf8');
    const config = readFileSync(join(home, 'config.toml'), 'utf8');
    const second = start();
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain(`already holds the hooks of Gatehouse session ${first}`);
    expect(sessionId).toBe(first);
    expect(readFileSync(g.project.path('.codex/hooks.json'), 'utf8')).toBe(hooks);
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toBe(config);
  });

  it('refuses, rendering nothing, when Codex cannot be found to trust the hooks, or the project is marked untrusted', () => {
    const missing = start([], { CODEX_HOME: home, GATEHOUSE_CODEX_BIN: join(home, 'no-codex-here') });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('GATEHOUSE_CODEX_BIN');
    expect(existsSync(g.project.path('.codex/hooks.json'))).toBe(false);

    const config = `[projects."${g.project.dir}"]\ntrust_level = "untrusted"\n`;
    writeFileSync(join(home, 'config.toml'), config);
    const untrusted = start();
    expect(untrusted.status).not.toBe(0);
    expect(untrusted.stderr).toContain('told not to trust');
    expect(existsSync(g.project.path('.codex/hooks.json'))).toBe(false);
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toBe(config);
  });
});
