// Every adapter names the agent's settings and data folders under the homes of the environment
// the agent runs with (the session's), never under Gatehouse's own HOME: a session started with
// a throwaway HOME (doctor, tests, a service account) protects that home's settings files.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterFor, knownAgents } from '../../src/adapters/registry.js';
import { isInside } from '../../src/core/path-inside.js';

const worktree = '/srv/tree';
const home = '/elsewhere/home';
const env: NodeJS.ProcessEnv = { HOME: home };

describe.each(knownAgents())('%s adapter homes', (agent) => {
  const adapter = adapterFor(agent)!;

  it('names settings files only in the worktree or under the session HOME', () => {
    const files = adapter.settingsFiles(worktree, env);
    for (const f of files) expect(isInside(worktree, f) || isInside(home, f), f).toBe(true);
    for (const f of files) expect(isInside(homedir(), f), f).toBe(false);
  });

  it('names data folders only under the session HOME', () => {
    const { dirs, files } = adapter.dataPaths(env);
    for (const p of [...dirs, ...files]) expect(isInside(home, p), p).toBe(true);
  });
});

describe('agent-specific home variables', () => {
  it.each([
    ['codex', { CODEX_HOME: '/c/home' }, '/c/home/config.toml'],
    ['gemini', { GEMINI_CLI_HOME: '/g' }, '/g/.gemini/trustedFolders.json'],
    ['copilot', { COPILOT_HOME: '/p' }, '/p/config.json'],
    ['opencode', { XDG_CONFIG_HOME: '/x' }, '/x/opencode/plugins'],
    ['opencode', { OPENCODE_CONFIG_DIR: 'cfg' }, join(worktree, 'cfg', 'plugin')],
    ['opencode', { OPENCODE_CONFIG: '/o/extra.json' }, '/o/extra.json'],
  ] as const)('%s protects what %j names', (agent, vars, expected) => {
    expect(adapterFor(agent)!.settingsFiles(worktree, { ...env, ...vars })).toContain(expected);
  });

  it('OpenCode protects every config file and plugin folder it loads plugins from, project and user', () => {
    const files = adapterFor('opencode')!.settingsFiles(worktree, env);
    for (const f of ['opencode.json', 'opencode.jsonc', '.opencode/plugin', '.opencode/plugins', '.opencode/opencode.json', '.opencode/opencode.jsonc']) expect(files).toContain(join(worktree, f));
    for (const f of ['opencode.json', 'opencode.jsonc', 'config.json', 'plugin', 'plugins']) expect(files).toContain(join(home, '.config', 'opencode', f));
  });
});
