// The Claude Agent SDK gated in-process: a program passes `gatehouseHooks({ session })` to
// the real `query()`, which drives the real Claude Code binary against the stub model. The
// callbacks run the hook gate in the program's own process: no hook command is rendered.
import { existsSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatehouseHooks } from '../../src/gate/sdk-hooks.js';
import { shellJoin } from '../../src/core/shell-quote.js';
import { claudeBinary, lastUserText, say, startStubModel, tool, toolResults, type StubModel } from './support/index.js';
import { gatedProject, type GatedProject } from './support/gated-project.js';

const SDK_VERSION = '0.3.332';
const SDK_ENTRY = join(
  process.env.GATEHOUSE_AGENT_CACHE ?? join(homedir(), '.cache', 'gatehouse-agents'),
  `claude-agent-sdk@${SDK_VERSION}`,
  'node_modules',
  '@anthropic-ai',
  'claude-agent-sdk',
  'sdk.mjs',
);
const RUN_TEST_TIMEOUT_MS = 120_000;

/** The slice of the SDK this test uses. */
interface Sdk {
  query(args: { prompt: string; options: Record<string, unknown> }): AsyncIterable<{ type: string; subtype?: string; result?: string }>;
}

let g: GatedProject;
let stub: StubModel | undefined;
let scratch = '';

beforeEach(() => {
  g = gatedProject();
  scratch = mkdtempSync(join(tmpdir(), 'gh-sdk-'));
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  g.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs one `query()` to its end; the messages it yielded. */
async function run(prompt: string, hooks: unknown): Promise<{ type: string; subtype?: string; result?: string }[]> {
  const sdk = (await import(pathToFileURL(SDK_ENTRY).href)) as Sdk;
  const home = join(scratch, 'home');
  const ccTmp = join(scratch, 'tmp');
  mkdirSync(home, { recursive: true });
  mkdirSync(ccTmp, { recursive: true, mode: 0o700 });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    TMPDIR: ccTmp,
    CLAUDE_CODE_TMPDIR: ccTmp,
    ANTHROPIC_BASE_URL: stub!.url,
    ANTHROPIC_API_KEY: 'test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    IS_SANDBOX: '1',
  };
  const messages = [];
  for await (const m of sdk.query({
    prompt,
    options: { cwd: g.project.dir, env, hooks, pathToClaudeCodeExecutable: claudeBinary(), permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true, settingSources: [] },
  })) {
    messages.push(m);
  }
  return messages;
}

describe.skipIf(!claudeBinary() || !existsSync(SDK_ENTRY))('the Claude Agent SDK gated in-process', () => {
  it(
    'refuses an out-of-scope Write, lets an in-scope one land, and holds the Stop until the check passes',
    async () => {
      const check = shellJoin([process.execPath, '-e', "if (!require('fs').existsSync('src/fixed.ts')) { console.error('FAIL: src/fixed.ts missing'); process.exit(1) }"]);
      const id = g.start('claude-sdk', ['--require', `unit=${check}`]);
      const outside = g.project.path('package.json');
      const fixed = g.project.path('src/fixed.ts');
      stub = await startStubModel((req, i) => {
        if (i === 0) return tool('Write', { file_path: outside, content: '{}' });
        if (i === 1) return say('done');
        if (i === 2) return lastUserText(req.body).includes('FAIL: src/fixed.ts missing') ? tool('Write', { file_path: fixed, content: 'fixed\n' }) : say('no feedback seen');
        return say('fixed and done');
      });
      const messages = await run('do the task', gatehouseHooks({ session: id, worktree: g.project.dir, stateDir: g.state }));
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(toolResults(stub.turns[1]?.body)[0]?.text).toContain('package.json is outside this task');
      expect(readFileSync(fixed, 'utf8')).toBe('fixed\n');
      expect(messages.at(-1)).toMatchObject({ type: 'result', result: 'fixed and done' });
      // Nothing was rendered into files: the gate ran in this process.
      expect(existsSync(g.project.path('.claude/settings.local.json'))).toBe(false);
      expect(readFileSync(join(g.state, 'sessions', id, 'gate.log'), 'utf8')).toContain('"decision":"block"');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it('refuses to build hooks for a session that does not exist or is not an SDK session', () => {
    expect(() => gatehouseHooks({ session: 'nope', worktree: g.project.dir, stateDir: g.state })).toThrow(/no session nope/);
    const id = g.start('claude');
    expect(() => gatehouseHooks({ session: id, worktree: g.project.dir, stateDir: g.state })).toThrow(/--agent claude-sdk/);
  });
});
