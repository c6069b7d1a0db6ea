// `session start` warns in one line when the agent on PATH is not the tested version, and asks
// the binary its version only once while the binary is unchanged.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('gh-version-');
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'project'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A fake `claude` on PATH that says `version` and counts how often it was asked. */
function fakeClaude(version: string): void {
  const script = `#!/bin/sh\necho x >> ${JSON.stringify(join(dir, 'asked'))}\necho "${version} (Claude Code)"\n`;
  writeFileSync(join(dir, 'bin', 'claude'), script);
  chmodSync(join(dir, 'bin', 'claude'), 0o755);
}

function start(): ReturnType<typeof gatehouse> {
  const env = { PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`, GATEHOUSE_HOME: join(dir, 'state') };
  const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', join(dir, 'project'), '--allow', 'src/**'], { env });
  expect(r.status, r.stderr).toBe(0);
  gatehouse(['session', 'end', r.stdout.trim(), '--worktree', join(dir, 'project')], { env });
  return r;
}

const asked = (): number => readFileSync(join(dir, 'asked'), 'utf8').split('\n').filter(Boolean).length;

describe('session start and the agent version', () => {
  it('warns once per start about an untested version, suggesting doctor, and caches the answer by binary', () => {
    fakeClaude('1.0.0');
    const warnings = start()
      .stderr.split('\n')
      .filter((l) => l.startsWith('gatehouse: warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('is version 1.0.0, not the 2.1.328 Gatehouse is tested with');
    expect(warnings[0]).toContain('gatehouse doctor --agent claude');
    start();
    expect(asked()).toBe(1);
  });

  it('says nothing for the tested version', () => {
    fakeClaude('2.1.328');
    expect(start().stderr).not.toContain('gatehouse: warning:');
  });
});
