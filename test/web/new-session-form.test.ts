// What the "new session" form sends as `pty.spawn` params, and what it refuses.
import { describe, expect, it } from 'vitest';
import type { SessionFields } from '../../src/web/new-session-form.js';
import { buildSpawnParams } from '../../src/web/new-session-form.js';

const GEOMETRY = { cols: 120, rows: 40 };
const EMPTY: SessionFields = { mode: 'command', commandLine: '', cwd: '', agent: '', allow: '', require: '', sandbox: 'off' };

describe('buildSpawnParams', () => {
  it('spawns the default shell at the fitted size when the command line is empty', () => {
    expect(buildSpawnParams(EMPTY, GEOMETRY)).toEqual({ ok: true, params: { cols: 120, rows: 40 } });
  });

  it('splits the command line into command and args and passes the folder', () => {
    const built = buildSpawnParams({ ...EMPTY, commandLine: 'npm run "test:unit"', cwd: ' packages/core ' }, GEOMETRY);
    expect(built).toEqual({ ok: true, params: { command: 'npm', args: ['run', 'test:unit'], cwd: 'packages/core', cols: 120, rows: 40 } });
  });

  it('starts an agent under a session with its allowlist and required checks, one per line', () => {
    const built = buildSpawnParams({ ...EMPTY, mode: 'agent', agent: 'claude', allow: 'src/**\n\ntest/\n', require: 'test\nlint' }, GEOMETRY);
    expect(built).toEqual({ ok: true, params: { cols: 120, rows: 40, session: { agent: 'claude', allow: ['src/**', 'test/'], require: ['test', 'lint'] } } });
  });

  it('asks for the sandbox with its network when one is chosen, and sends nothing of it when off', () => {
    const agent: SessionFields = { ...EMPTY, mode: 'agent', agent: 'claude', allow: 'src/**' };
    for (const network of ['host', 'none'] as const) {
      const built = buildSpawnParams({ ...agent, sandbox: network }, GEOMETRY);
      expect(built.ok && built.params.session).toEqual({ agent: 'claude', allow: ['src/**'], require: [], sandbox: { network } });
    }
    const off = buildSpawnParams(agent, GEOMETRY);
    expect(off.ok && off.params.session).toEqual({ agent: 'claude', allow: ['src/**'], require: [] });
  });

  it('ignores the agent fields in command mode', () => {
    const built = buildSpawnParams({ ...EMPTY, agent: 'claude', allow: 'src/**', sandbox: 'none' }, GEOMETRY);
    expect(built.ok && built.params.session).toBeUndefined();
  });

  it('asks for the agent in agent mode', () => {
    const built = buildSpawnParams({ ...EMPTY, mode: 'agent' }, GEOMETRY);
    expect(built.ok).toBe(false);
    expect(!built.ok && built.reason).toMatch(/Name the agent/);
  });

  it('refuses a command line with an unclosed quote', () => {
    expect(buildSpawnParams({ ...EMPTY, commandLine: `echo "hi` }, GEOMETRY)).toEqual({ ok: false, reason: expect.stringMatching(/unclosed quote/) });
  });
});
