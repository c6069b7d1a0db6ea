import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedSince, recordBaseline } from '../../src/runtime/scope-baseline.js';
import type { Baseline } from '../../src/runtime/scope-baseline.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gh-scope-'));
  dirs.push(d);
  return d;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function write(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

/** A repository with `files` committed (no commit when `files` is empty). */
function repo(files: Record<string, string> = { 'README.md': 'hello\n', 'src/a.ts': 'export const a = 1;\n' }): string {
  const root = tempDir();
  git(root, 'init', '-q', '-b', 'main');
  for (const [rel, content] of Object.entries(files)) write(root, rel, content);
  if (Object.keys(files).length > 0) {
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '--no-gpg-sign', '-m', 'init');
  }
  return root;
}

async function baselineOf(root: string, kind: Baseline['kind']): Promise<Baseline> {
  const b = await recordBaseline(root);
  expect(b.kind).toBe(kind);
  return b;
}

describe('git worktree', () => {
  it('reports nothing when the worktree is unchanged', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    expect(await changedSince(root, b)).toEqual([]);
  });

  it('reports a modified tracked file', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    write(root, 'src/a.ts', 'export const a = 2;\n');
    expect(await changedSince(root, b)).toEqual([{ path: 'src/a.ts', change: 'modified' }]);
  });

  it('reports an untracked file created after the baseline', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    write(root, 'src/new.ts', 'x\n');
    expect(await changedSince(root, b)).toEqual([{ path: 'src/new.ts', change: 'created' }]);
  });

  it('does not report a file created where .gitignore ignores it', async () => {
    const root = repo({ '.gitignore': 'dist/\n', 'a.txt': 'a\n' });
    const b = await baselineOf(root, 'git');
    write(root, 'dist/out.js', 'built\n');
    expect(await changedSince(root, b)).toEqual([]);
  });

  it('reports a deleted tracked file', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    unlinkSync(join(root, 'README.md'));
    expect(await changedSince(root, b)).toEqual([{ path: 'README.md', change: 'deleted' }]);
  });

  it('reports a rename as the old path deleted and the new path created', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    renameSync(join(root, 'src/a.ts'), join(root, 'src/b.ts'));
    expect(await changedSince(root, b)).toEqual([
      { path: 'src/a.ts', change: 'deleted' },
      { path: 'src/b.ts', change: 'created' },
    ]);
  });

  it('ignores a file already dirty at baseline until it is changed again', async () => {
    const root = repo();
    write(root, 'src/a.ts', 'export const a = 2;\n');
    write(root, 'notes.txt', 'draft\n');
    const b = await baselineOf(root, 'git');
    expect(await changedSince(root, b)).toEqual([]);
    write(root, 'src/a.ts', 'export const a = 3;\n');
    write(root, 'notes.txt', 'draft 2\n');
    expect(await changedSince(root, b)).toEqual([
      { path: 'notes.txt', change: 'modified' },
      { path: 'src/a.ts', change: 'modified' },
    ]);
  });

  it('reports a file dirty at baseline that is then reverted to HEAD', async () => {
    const root = repo();
    write(root, 'src/a.ts', 'export const a = 2;\n');
    unlinkSync(join(root, 'README.md'));
    const b = await baselineOf(root, 'git');
    git(root, 'checkout', '--', 'src/a.ts', 'README.md');
    expect(await changedSince(root, b)).toEqual([
      { path: 'README.md', change: 'created' },
      { path: 'src/a.ts', change: 'modified' },
    ]);
  });

  it('still reports changes that the agent committed after the baseline', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    write(root, 'src/a.ts', 'export const a = 2;\n');
    write(root, 'src/new.ts', 'x\n');
    unlinkSync(join(root, 'README.md'));
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '--no-gpg-sign', '-m', 'agent');
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(await changedSince(root, b)).toEqual([
      { path: 'README.md', change: 'deleted' },
      { path: 'src/a.ts', change: 'modified' },
      { path: 'src/new.ts', change: 'created' },
    ]);
  });

  it('works in a repository with no commits yet', async () => {
    const root = repo({});
    write(root, 'old.txt', 'before\n');
    write(root, 'staged.txt', 'staged\n');
    git(root, 'add', 'staged.txt');
    const b = await baselineOf(root, 'git');
    expect(b).toMatchObject({ kind: 'git', head: null });
    expect(await changedSince(root, b)).toEqual([]);
    write(root, 'staged.txt', 'changed\n');
    write(root, 'new.txt', 'x\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '--no-gpg-sign', '-m', 'first');
    expect(await changedSince(root, b)).toEqual([
      { path: 'new.txt', change: 'created' },
      { path: 'staged.txt', change: 'modified' },
    ]);
  });

  it('reports only paths under a worktree that is a subfolder of the repository, relative to it', async () => {
    const root = repo({ 'pkg/app/src/a.ts': 'a\n', 'pkg/other.ts': 'o\n', 'top.txt': 't\n' });
    const wt = join(root, 'pkg/app');
    const b = await baselineOf(wt, 'git');
    write(root, 'pkg/app/src/a.ts', 'a2\n');
    write(root, 'pkg/app/new.ts', 'n\n');
    write(root, 'pkg/other.ts', 'o2\n');
    write(root, 'outside.txt', 'x\n');
    unlinkSync(join(root, 'top.txt'));
    expect(await changedSince(wt, b)).toEqual([
      { path: 'new.ts', change: 'created' },
      { path: 'src/a.ts', change: 'modified' },
    ]);
  });

  it('handles names with spaces, unicode and object-prototype words', async () => {
    const root = repo({ 'docs/read me.md': 'r\n', 'données/café ☕.txt': 'c\n', constructor: 'k\n' });
    write(root, '__proto__', 'dirty at baseline\n');
    const b = await baselineOf(root, 'git');
    expect(await changedSince(root, b)).toEqual([]);
    write(root, 'docs/read me.md', 'r2\n');
    write(root, 'données/café ☕.txt', 'c2\n');
    write(root, 'new file ✓.txt', 'n\n');
    write(root, 'constructor', 'k2\n');
    unlinkSync(join(root, '__proto__'));
    expect(await changedSince(root, b)).toEqual([
      { path: '__proto__', change: 'deleted' },
      { path: 'constructor', change: 'modified' },
      { path: 'docs/read me.md', change: 'modified' },
      { path: 'données/café ☕.txt', change: 'modified' },
      { path: 'new file ✓.txt', change: 'created' },
    ]);
  });

  it('never reports excluded paths, whether files or folders', async () => {
    const root = repo();
    const opts = { exclude: ['.claude/settings.json', './gen/'] };
    const b = await recordBaseline(root, opts);
    write(root, '.claude/settings.json', '{}\n');
    write(root, 'gen/x/y.ts', 'y\n');
    write(root, 'src/a.ts', 'changed\n');
    expect(await changedSince(root, b, opts)).toEqual([{ path: 'src/a.ts', change: 'modified' }]);
  });

  it('reports a tracked file made executable, and a retargeted symlink', async () => {
    const root = repo();
    symlinkSync('README.md', join(root, 'link'));
    const b = await baselineOf(root, 'git');
    chmodSync(join(root, 'src/a.ts'), 0o755);
    unlinkSync(join(root, 'link'));
    symlinkSync('src/a.ts', join(root, 'link'));
    expect(await changedSince(root, b)).toEqual([
      { path: 'link', change: 'modified' },
      { path: 'src/a.ts', change: 'modified' },
    ]);
  });

  it('sees through assume-unchanged and skip-worktree flags', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    git(root, 'update-index', '--assume-unchanged', 'src/a.ts');
    git(root, 'update-index', '--skip-worktree', 'README.md');
    write(root, 'src/a.ts', 'hidden?\n');
    write(root, 'README.md', 'hidden?\n');
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(await changedSince(root, b)).toEqual([
      { path: 'README.md', change: 'modified' },
      { path: 'src/a.ts', change: 'modified' },
    ]);
  });

  it('still reports a file hidden by an ignore rule added to .git/info/exclude', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    writeFileSync(join(root, '.git/info/exclude'), 'secret.txt\n');
    write(root, 'secret.txt', 's\n');
    expect(await changedSince(root, b)).toEqual([{ path: 'secret.txt', change: 'created' }]);
  });

  it('reports a nested repository created inside the worktree as one entry that tracks its files', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    const nested = join(root, 'vendor/lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    write(nested, 'x.ts', 'x\n');
    expect(await changedSince(root, b)).toEqual([{ path: 'vendor/lib', change: 'created' }]);
    const b2 = await baselineOf(root, 'git');
    expect(await changedSince(root, b2)).toEqual([]);
    write(nested, 'x.ts', 'x2\n');
    expect(await changedSince(root, b2)).toEqual([{ path: 'vendor/lib', change: 'modified' }]);
  });

  it('falls back to a manifest when the worktree is a folder the repository ignores', async () => {
    const root = repo({ '.gitignore': 'scratch/\n' });
    const wt = join(root, 'scratch');
    write(wt, 'a.txt', 'a\n');
    const b = await baselineOf(wt, 'manifest');
    write(wt, 'b.txt', 'b\n');
    expect(await changedSince(wt, b)).toEqual([{ path: 'b.txt', change: 'created' }]);
  });

  it('looks at the worktree\'s own repository even when GIT_DIR points elsewhere, as inside a git hook', async () => {
    const root = repo();
    const other = repo({ 'other.txt': 'o\n' });
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = join(other, '.git');
    try {
      const b = await baselineOf(root, 'git');
      expect(b).toMatchObject({ head: git(root, 'rev-parse', 'HEAD').trim(), dirty: {} });
      write(root, 'src/a.ts', 'changed\n');
      expect(await changedSince(root, b)).toEqual([{ path: 'src/a.ts', change: 'modified' }]);
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });

  it('throws with the reason when the repository is gone at check time', async () => {
    const root = repo();
    const b = await baselineOf(root, 'git');
    rmSync(join(root, '.git'), { recursive: true });
    await expect(changedSince(root, b)).rejects.toThrow(/no longer inside a git work tree/);
  });
});

describe('manifest (not a git worktree)', () => {
  function folder(): string {
    const root = tempDir();
    write(root, 'a.txt', 'alpha\n');
    write(root, 'sub/b.txt', 'bravo\n');
    write(root, 'sub/c.txt', 'charlie\n');
    return root;
  }

  it('reports nothing when the folder is unchanged', async () => {
    const root = folder();
    const b = await baselineOf(root, 'manifest');
    expect(await changedSince(root, b)).toEqual([]);
  });

  it('reports created, modified, deleted and renamed files', async () => {
    const root = folder();
    const b = await baselineOf(root, 'manifest');
    write(root, 'a.txt', 'alpha, longer\n');
    write(root, 'sub/new.txt', 'n\n');
    unlinkSync(join(root, 'sub/b.txt'));
    renameSync(join(root, 'sub/c.txt'), join(root, 'c moved ✓.txt'));
    expect(await changedSince(root, b)).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'c moved ✓.txt', change: 'created' },
      { path: 'sub/b.txt', change: 'deleted' },
      { path: 'sub/c.txt', change: 'deleted' },
      { path: 'sub/new.txt', change: 'created' },
    ]);
  });

  it('skips .git folders and excluded paths', async () => {
    const root = folder();
    const opts = { exclude: ['hooks.json', 'cache'] };
    const b = await recordBaseline(root, opts);
    write(root, '.git/config', 'x\n');
    write(root, 'sub/.git/HEAD', 'x\n');
    write(root, 'hooks.json', '{}\n');
    write(root, 'cache/x.bin', 'x\n');
    expect(await changedSince(root, b, opts)).toEqual([]);
  });

  it('records a symlink as its link text without following it', async () => {
    const root = folder();
    const outside = tempDir();
    write(outside, 'target.txt', 'one\n');
    symlinkSync(join(outside, 'target.txt'), join(root, 'link'));
    const b = await baselineOf(root, 'manifest');
    expect(b.kind === 'manifest' && Object.keys(b.files)).toContain('link');
    write(outside, 'target.txt', 'two, different size\n');
    expect(await changedSince(root, b)).toEqual([]);
    unlinkSync(join(root, 'link'));
    symlinkSync(join(root, 'a.txt'), join(root, 'link'));
    expect(await changedSince(root, b)).toEqual([{ path: 'link', change: 'modified' }]);
  });

  it('reports a file rewritten without a content change as unchanged', async () => {
    const root = folder();
    const b = await baselineOf(root, 'manifest');
    write(root, 'a.txt', readFileSync(join(root, 'a.txt'), 'utf8'));
    expect(await changedSince(root, b)).toEqual([]);
  });

  it('takes a file whose size, mtime, ctime and inode all match as unchanged without reading it', async () => {
    const root = folder();
    const b = await baselineOf(root, 'manifest');
    if (b.kind !== 'manifest') throw new Error('expected a manifest');
    const forged = structuredClone(b);
    forged.files['a.txt'] = { ...b.files['a.txt']!, sha256: '0'.repeat(64) };
    expect(await changedSince(root, forged)).toEqual([]);
  });

  it('catches a same-size rewrite whose mtime was put back with utimes, because ctime moved', async () => {
    const root = folder();
    const file = join(root, 'a.txt');
    const WHOLE_SECOND = 1_700_000_000; // exactly representable, so utimes can restore it to the nanosecond
    utimesSync(file, WHOLE_SECOND, WHOLE_SECOND);
    const b = await baselineOf(root, 'manifest');
    if (b.kind !== 'manifest') throw new Error('expected a manifest');
    await new Promise((r) => setTimeout(r, 50)); // step past the kernel's timestamp tick
    writeFileSync(file, 'ALPHA\n');
    utimesSync(file, WHOLE_SECOND, WHOLE_SECOND);
    const now = statSync(file, { bigint: true });
    const was = b.files['a.txt']!;
    expect([now.mtimeNs.toString(), Number(now.size), Number(now.ino)]).toEqual([was.mtime_ns, was.size, was.ino]);
    expect(await changedSince(root, b)).toEqual([{ path: 'a.txt', change: 'modified' }]);
  });
});
