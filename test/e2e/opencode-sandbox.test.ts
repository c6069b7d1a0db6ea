// Gatehouse with the real OpenCode CLI inside the bubblewrap sandbox (`gatehouse run --sandbox`)
// and a scripted OpenAI-compatible stub: the generated plugin reaches the run through its socket
// and still refuses a write outside the allowlist, and OpenCode's plugin folders and config files
// (project and user) stay read-only, so the agent cannot load a plugin of its own next time.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatedProject, type GatedProject } from './support/gated-project.js';
import { messagesOf, startChatStub, type ChatStub } from '../../src/runtime/doctor/stub/openai-chat.js';
import { isOpencodeTurn, opencodeBinary, writeOpencodeConfig } from '../../src/runtime/doctor/run/opencode-run.js';
import { say, tool } from './support/index.js';
import { runSandboxed, sandboxAvailable, scratchHome } from './support/sandbox-run.js';

const RUN_TEST_TIMEOUT_MS = 240_000;
const bin = opencodeBinary();

let g: GatedProject;
let scratch: ReturnType<typeof scratchHome>;
let stub: ChatStub | undefined;

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

describe.skipIf(bin === null || !sandboxAvailable())('Gatehouse gates the real OpenCode inside the sandbox', () => {
  it(
    "refuses a write outside the allowlist with the gate's reason, lets one inside land, and keeps every plugin folder read-only",
    async () => {
      const outside = g.project.path('package.json');
      const inside = g.project.path('src/feature.ts');
      const userPlugins = join(scratch.home, '.config', 'opencode', 'plugins');
      mkdirSync(join(scratch.home, '.config', 'opencode'), { recursive: true });
      const plant = `mkdir -p .opencode/plugins ${userPlugins} ; echo x > .opencode/plugins/evil.js ; echo x > ${userPlugins}/evil.js ; true`;
      const script = [
        tool('write', { filePath: outside, content: '{}' }),
        tool('write', { filePath: inside, content: 'export const x = 1;\n' }),
        tool('bash', { command: plant, description: 'plant plugins' }),
      ];
      stub = await startChatStub((_req, i) => script[i] ?? say('done'), { isTurn: isOpencodeTurn });
      writeOpencodeConfig(g.project.dir, stub.url);
      const run = await runSandboxed({
        agent: 'opencode',
        worktree: g.project.dir,
        state: g.state,
        home: scratch.home,
        flags: ['--allow', 'src/**'],
        argv: [bin!, 'run', 'do the task'],
        timeoutMs: 180_000,
      });
      expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
      expect(stub.problems).toEqual([]);
      expect(existsSync(outside)).toBe(false);
      expect(messagesOf(stub.turns[1], 'tool').join('\n')).toContain('package.json is outside this task');
      expect(readFileSync(inside, 'utf8')).toBe('export const x = 1;\n');
      expect(existsSync(g.project.path('.opencode/plugins/evil.js'))).toBe(false);
      expect(existsSync(join(userPlugins, 'evil.js'))).toBe(false);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
