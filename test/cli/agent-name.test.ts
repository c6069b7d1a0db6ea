// `--agent` everywhere a session starts: a typo is a usage error that lists the known agents,
// the case of a name does not matter, and gating nothing in-session is `--agent none`, said aloud.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';

let base: string;
let root: string;
let state: string;

beforeEach(() => {
  base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

const where = (): string[] => ['--worktree', root, '--state-dir', state, '--allow', 'src/**'];
const writeSrc = [process.execPath, '-e', "require('fs').writeFileSync('src/a.txt','x')"];

describe('an unknown --agent', () => {
  for (const agent of ['claud', 'foo']) {
    it(`is a usage error for \`session start --agent ${agent}\` and \`run --agent ${agent}\`, starting nothing`, () => {
      for (const args of [
        ['session', 'start', '--agent', agent, ...where()],
        ['run', '--agent', agent, ...where(), '--', ...writeSrc],
      ]) {
        const r = gatehouse(args);
        expect(r.status, args.join(' ')).toBe(2);
        expect(r.stderr).toContain(`unknown agent "${agent}"`);
        expect(r.stderr).toContain('claude, qwen, claude-sdk, gemini, copilot, cursor, opencode, codex');
        expect(r.stderr).toContain('--agent none');
        expect(r.stderr).not.toContain('PASSED');
        expect(existsSync(join(root, 'src', 'a.txt')), 'the command never ran').toBe(false);
        expect(existsSync(join(state, 'sessions'))).toBe(false);
      }
    });
  }

  it('suggests the agent a typo was close to', () => {
    expect(gatehouse(['session', 'start', '--agent', 'claud', ...where()]).stderr).toContain('did you mean claude?');
    expect(gatehouse(['session', 'start', '--agent', 'foo', ...where()]).stderr).not.toContain('did you mean');
  });
});

describe('agent names in any case', () => {
  it('starts `--agent Claude` as claude, with its hooks', () => {
    const r = gatehouse(['session', 'start', '--agent', 'Claude', ...where(), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { policy: { agent: string }; gated_in_session: boolean };
    expect(out.policy.agent).toBe('claude');
    expect(out.gated_in_session).toBe(true);
    expect(existsSync(join(root, '.claude', 'settings.local.json'))).toBe(true);
  });
});

describe('--agent none', () => {
  it('renders nothing and says the session is not gated in-session', () => {
    const r = gatehouse(['session', 'start', '--agent', 'none', ...where()]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('not gated in-session (--agent none)');
    expect(r.stderr).toContain('capabilities for none: none; the end-of-session check is the only gate');
    expect(r.stderr.match(/on purpose/g)).toBeNull();
    expect(existsSync(join(root, '.claude'))).toBe(false);
  });

  it('is reported by `run` as not gated in-session, in its verdict and its JSON', () => {
    const r = gatehouse(['run', '--agent', 'none', ...where(), '--', ...writeSrc]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('started (not gated in-session (--agent none)');
    expect(r.stderr).toMatch(/PASSED \(not gated in-session: --agent none\)/);
    const j = gatehouse(['run', '--agent', 'none', ...where(), '--json', '--', ...writeSrc]);
    expect(JSON.parse(j.stdout)).toMatchObject({ passed: true, gated_in_session: false });
    const gated = gatehouse(['run', '--agent', 'claude', ...where(), '--json', '--', ...writeSrc]);
    expect(JSON.parse(gated.stdout)).toMatchObject({ passed: true, gated_in_session: true });
  });
});

describe('an agent that does not match the program run', () => {
  for (const agent of ['claude-sdk', 'gemini']) {
    it(`refuses \`run --agent ${agent} -- claude\`, naming --agent claude, and starts nothing`, () => {
      const r = gatehouse(['run', '--agent', agent, ...where(), '--', 'env', 'K=v', 'claude', '-p', 'hi']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`claude is the claude agent's CLI, but this session gates ${agent}`);
      expect(r.stderr).toContain('use --agent claude');
      expect(r.stderr).not.toContain('gated in-process');
      expect(existsSync(join(state, 'sessions'))).toBe(false);
      expect(existsSync(join(root, '.claude'))).toBe(false);
    });
  }

  it('runs a program that is no known agent under claude-sdk, saying the gate is only in a program using the SDK hooks', () => {
    const r = gatehouse(['run', '--agent', 'claude-sdk', ...where(), '--', ...writeSrc]);
    expect(r.stderr).toContain("claude-sdk gates only a program that uses Gatehouse's SDK integration");
    expect(r.stderr).not.toContain('is gated in-process');
    expect(r.stderr).toContain("capabilities for claude-sdk (only inside a program that calls Gatehouse's SDK hooks; none for any other command)");
  });

  it.each([
    [['opencode', 'run', '--pure', 'hi'], {}, 'with the flag --pure, opencode skips the hooks'],
    [['opencode', 'run', 'hi'], { OPENCODE_PURE: '1' }, 'with OPENCODE_PURE=1, opencode skips the hooks'],
    [['opencode', 'run', 'hi'], { OPENCODE_DISABLE_PROJECT_CONFIG: 'true' }, 'unset OPENCODE_DISABLE_PROJECT_CONFIG'],
  ])('refuses `run --agent opencode -- %j` with %j, which switches its plugin off, and starts nothing', (argv, env, said) => {
    const r = gatehouse(['run', '--agent', 'opencode', ...where(), '--', ...argv], { env });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(said);
    expect(existsSync(join(state, 'sessions'))).toBe(false);
    expect(existsSync(join(root, '.opencode'))).toBe(false);
  });

  it('runs OpenCode when its off-switch variable is set to 0', () => {
    const r = gatehouse(['run', '--agent', 'opencode', ...where(), '--', 'opencode-not-installed-here'], { env: { OPENCODE_PURE: '0' } });
    expect(r.stderr).not.toContain('skips the hooks');
  });

  it('still runs a known agent under --agent none, ungated on purpose', () => {
    const r = gatehouse(['run', '--agent', 'none', ...where(), '--', 'claude-not-installed-here']);
    expect(r.stderr).not.toContain("agent's CLI");
  });
});
