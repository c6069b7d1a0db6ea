// Real git repositories and folders in temp dirs for the scope-check tests, with a git
// environment that reads no config of the machine running the tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { changedSince, recordBaseline, type Baseline, type Change } from '../../src/runtime/scope-baseline.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  writeFileSync(join(home, '.gitconfig'), ''); // a test may have set global config
});

/** A fresh temp folder, removed after the test; its real path (tmpdir may be a symlink). */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gh-scope-'));
  dirs.push(d);
  return execFileSync('realpath', [d], { encoding: 'utf8' }).trim();
}

// Gatehouse runs git with the user's environment: give this process a user without any
// global or system git config, so the tests do not depend on the machine.
const home = mkdtempSync(join(tmpdir(), 'gh-scope-home-'));
process.env.HOME = home;
process.env.XDG_CONFIG_HOME = join(home, '.config');
process.env.GIT_CONFIG_NOSYSTEM = '1';
process.env.GIT_CONFIG_GLOBAL = join(home, '.gitconfig');
writeFileSync(join(home, '.gitconfig'), '');
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The environment the tests run git with (the agent's git, in the attacks). */
export function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function write(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

/** A repository with `files` committed (no commit when `files` is empty). */
export function repo(files: Record<string, string> = { 'README.md': 'hello\n', 'src/a.ts': 'export const a = 1;\n' }): string {
  const root = tempDir();
  git(root, 'init', '-q', '-b', 'main');
  for (const [rel, content] of Object.entries(files)) write(root, rel, content);
  if (Object.keys(files).length > 0) commitAll(root, 'init');
  return root;
}

export function commitAll(root: string, message: string): void {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '--no-gpg-sign', '-m', message);
}

/** The changes since `b`, as `"<change> <path> <undo>"` lines: short to read in a failing test. */
export async function changes(root: string, b: Baseline, opts: { allow?: string[]; exclude?: string[] } = {}): Promise<string[]> {
  return (await changedSince(root, b, opts)).map(show);
}

function show(c: Change): string {
  return `${c.change} ${c.path} ${c.undo}`;
}

export { changedSince, recordBaseline };
