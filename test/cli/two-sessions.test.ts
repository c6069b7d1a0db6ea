// Two sessions in one worktree: the agent settings file holds the first one's hooks when the
// second starts, and must be back as it was (first session's hooks and all) when the second ends.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';

let root: string;
let state: string;
let first: string;
const settings = (): string => join(root, '.claude', 'settings.local.json');

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**']);
  expect(started.status).toBe(0);
  first = started.stdout.trim();
  expect(existsSync(settings())).toBe(true);
});

const run = (script: string) => gatehouse(['run', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--', 'sh', '-c', script]);

describe('a second session beside a running one', () => {
  it('passes, and leaves the first session its hooks', () => {
    const before = readFileSync(settings(), 'utf8');
    const r = run('echo x > src/a.ts');
    expect(r.stderr).not.toMatch(/(created|modified): .claude/);
    expect(r.status).toBe(0);
    expect(readFileSync(settings(), 'utf8')).toBe(before);
    expect(before).toContain(`--session ${first}`);
  });

  it('still reports a settings file the agent changed behind Gatehouse', () => {
    const r = run(`printf ' ' >> ${JSON.stringify(settings())}`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('modified: .claude/settings.local.json');
  });
});
