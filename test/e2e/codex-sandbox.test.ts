// Gatehouse with the real Codex CLI inside the bubblewrap sandbox (`gatehouse run --sandbox`)
// and a scripted Responses-API stub: Codex's hooks reach the run through its socket and still
// gate every patch, the Stop hook holds the turn while a required check fails, a shell write
// the gate cannot see is stopped by the read-only file system, and the signing key stays out of
// reach.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellJoin } from '../../src/core/shell-quote.js';
import { gatehouse } from '../support/cli.js';
import { codexBinary, CODEX_STUB_KEY_ENV, makeCodexHome } from '../../src/runtime/doctor/run/codex-run.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { say, tool } from './support/index.js';
import { addFilePatch, hookPrompts, sentText, startResponsesStub, toolOutputs, type ResponsesStub } from '../../src/runtime/doctor/stub/responses-api.js';
import { runSandboxed, sandboxAvailable, scratchHome } from './support/sandbox-run.js';

const RUN_TEST_TIMEOUT_MS = 120_000;
const bin = codexBinary();

let g: GatedProject;
let scratch: ReturnType<typeof scratchHome>;
let stub: ResponsesStub | undefined;

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

/** Codex's data folder, inside the test's HOME where Codex would put it. */
function codexHome(): string {
  return join(scratch.home, '.codex');
}

/** `gatehouse run --sandbox --agent codex … -- codex exec …` with the stub as Codex's model. */
async function runCodexSandboxed(prompt: string, flags: string[]): Promise<Awaited<ReturnType<typeof runSandboxed>>> {
  if (bin === null || stub === undefined) throw new Error('no Codex CLI or no stub');
  makeCodexHome(codexHome(), stub.url);
  return runSandboxed({
    agent: 'codex',
    worktree: g.project.dir,
    state: g.state,
    home: scratch.home,
    flags,
    argv: [bin, 'exec', '--json', '--dangerously-bypass-approvals-and-sandbox', '--', prompt],
    env: { CODEX_HOME: codexHome(), GATEHOUSE_CODEX_BIN: bin, [CODEX_STUB_KEY_ENV]: 'test' },
    timeoutMs: 90_000,
  });
}

describe.skipIf(bin === null || !sandboxAvailable())('Gatehouse gates the real Codex CLI inside the sandbox', () => {
  it(
    'applies a patch inside the allowlist and refuses one outside it with the gate’s reason',
    async () => {
      const script = [tool('apply_patch', addFilePatch('package.json', '{}')), tool('apply_patch', addFilePatch('src/feature.ts', 'export const x = 1;'))];
      stub = await startResponsesStub((_req, i) => script[i] ?? say('done'));
      const run = await runCodexSandboxed('do the task', ['--allow', 'src/**']);
      expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(g.project.path('package.json'))).toBe(false);
      const outputs = toolOutputs(stub.turns[2]).map((o) => o.text);
      expect(outputs[0]).toContain('package.json is outside this task');
      expect(outputs.join('\n')).not.toContain('cannot be reached');
      expect(readFileSync(g.project.path('src/feature.ts'), 'utf8')).toBe('export const x = 1;\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'holds the turn while a required check fails, with its output, and lets it end once the model fixes it',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      stub = await startResponsesStub((req, i) => {
        if (i === 0) return say('done');
        if (i === 1) return hookPrompts(req).some((p) => p.includes('FAIL: src/fixed.ts missing')) ? tool('apply_patch', addFilePatch('src/fixed.ts', 'fixed')) : say('no feedback seen');
        return say('fixed and done');
      });
      const run = await runCodexSandboxed('fix it', ['--allow', 'src/**', '--require', `test=${check}`]);
      expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(hookPrompts(stub.turns[1]).join('\n')).toContain('required check');
      expect(hookPrompts(stub.turns[1]).join('\n')).toContain('FAIL: src/fixed.ts missing');
      expect(existsSync(g.project.path('src/fixed.ts'))).toBe(true);
      // The turn ended: the last request was answered with the final message, no Stop block after it.
      expect(stub.turns).toHaveLength(3);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'stops a shell write outside the folder-shaped allowlist that the gate cannot see as a write: the file system is read-only there',
    async () => {
      g.project.write('README.md', 'readme\n');
      const write = shellJoin(['python3', '-c', "open('README.md','w').write('x')"]);
      stub = await startResponsesStub((_req, i) => (i === 0 ? tool('exec_command', { cmd: write }) : say('done')));
      const run = await runCodexSandboxed('do the task', ['--allow', 'src/**']);
      expect(stub.problems).toEqual([]);
      expect(
        toolOutputs(stub.turns[1])
          .map((o) => o.text)
          .join('\n'),
      ).toContain('Read-only file system');
      expect(readFileSync(g.project.path('README.md'), 'utf8')).toBe('readme\n');
      expect(run.stderr).not.toContain('cannot be reached');
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
      stub = await startResponsesStub((_req, i) => (i === 0 ? tool('exec_command', { cmd: read }) : say('done')));
      await runCodexSandboxed('do the task', ['--allow', 'src/**']);
      expect(stub.problems).toEqual([]);
      const output = toolOutputs(stub.turns[1])
        .map((o) => o.text)
        .join('\n');
      expect(output).toMatch(/No such file or directory|Permission denied/);
      const body = key.split('\n')[1] ?? key;
      for (const t of stub.turns) expect(sentText(t)).not.toContain(body);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'keeps the hooks file the session made in a project without one read-only, its folder in place, when the whole worktree is writable',
    async () => {
      expect(existsSync(g.project.path('.codex'))).toBe(false);
      // Neither moved aside (its folder is a mount point) nor rewritten in place.
      const py = ['import os', 'try:', "  os.rename('.codex', '.codex-old')", 'except OSError as e:', '  print(e)', "open('.codex/hooks.json','w').write('{}')"].join('\n');
      const write = shellJoin(['python3', '-c', py]);
      let hooksDuring = '';
      stub = await startResponsesStub((_req, i) => {
        if (i === 0) return tool('exec_command', { cmd: write });
        if (i === 1) hooksDuring = readFileSync(g.project.path('.codex/hooks.json'), 'utf8');
        return say('done');
      });
      await runCodexSandboxed('do the task', []);
      expect(stub.problems).toEqual([]);
      const output = toolOutputs(stub.turns[1])
        .map((o) => o.text)
        .join('\n');
      expect(output).toContain('Device or resource busy');
      expect(output).toContain('Read-only file system');
      expect(existsSync(g.project.path('.codex-old'))).toBe(false);
      expect(hooksDuring).toContain('PreToolUse');
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
