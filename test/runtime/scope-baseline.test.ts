import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASELINE_VERSION } from '../../src/runtime/scope-baseline.js';
import { changedSince, changes, commitAll, git, recordBaseline, repo, tempDir, write } from './scope-fixture.js';

describe('git worktree', () => {
  it('reports nothing when the worktree is unchanged', async () => {
    const root = repo();
    const b = await recordBaseline(root);
    expect(b.v).toBe(BASELINE_VERSION);
    expect(b.git).not.toBeNull();
    expect(await changes(root, b)).toEqual([]);
  });

  it('reports a modified clean tracked file as restorable with git checkout', async () => {
    const root = repo();
    const b = await recordBaseline(root);
    write(root, 'src/a.ts', 'export const a = 2;\n');
    expect(await changes(root, b)).toEqual(['modified src/a.ts checkout']);
  });

  it('reports a created file as one to delete, and a deleted tracked file as one to check out', async () => {
    const root = repo();
    const b = await recordBaseline(root);
    write(root, 'src/new.ts', 'x\n');
    unlinkSync(join(root, 'README.md'));
    expect(await changes(root, b)).toEqual(['deleted README.md checkout', 'created src/new.ts delete']);
  });

  it('does not report a file created where .gitignore ignored it at baseline', async () => {
    const root = repo({ '.gitignore': 'dist/\n*.log\n', 'a.txt': 'a\n' });
    const b = await recordBaseline(root);
    write(root, 'dist/out.js', 'built\n');
    write(root, 'src/debug.log', 'log\n');
    expect(await changes(root, b)).toEqual([]);
  });

  it('reports a rename as the old path deleted and the new path created', async () => {
    const root = repo();
    const b = await recordBaseline(root);
    renameSync(join(root, 'src/a.ts'), join(root, 'src/b.ts'));
    expect(await changes(root, b)).toEqual(['deleted src/a.ts checkout', 'created src/b.ts delete']);
  });

  it('takes files dirty or untracked at baseline as they were then, to be written back when changed', async () => {
    const root = repo();
    write(root, 'src/a.ts', 'export const a = 2;\n');
    write(root, 'notes.txt', 'draft\n');
    const b = await recordBaseline(root);
    expect(await changes(root, b)).toEqual([]);
    write(root, 'src/a.ts', 'export const a = 3;\n');
    write(root, 'notes.txt', 'draft 2\n');
    expect(await changes(root, b)).toEqual(['modified notes.txt rewrite', 'modified src/a.ts rewrite']);
  });

  it('reports a file dirty at baseline that is then reverted to HEAD, and recreates a tracked file deleted at baseline', async () => {
    const root = repo();
    write(root, 'src/a.ts', 'export const a = 2;\n');
    unlinkSync(join(root, 'README.md'));
    const b = await recordBaseline(root);
    git(root, 'checkout', '--', 'src/a.ts', 'README.md');
    expect(await changes(root, b)).toEqual(['created README.md delete', 'modified src/a.ts rewrite']);
  });

  it('offers git checkout only for a file whose index entry and HEAD both hold its content', async () => {
    const root = repo({ 'README.md': 'r\n', 'staged.txt': 's\n', 'reverted.txt': 'v\n', 'pkg/sub.txt': 'p\n' });
    write(root, 'staged.txt', 'staged\n');
    write(root, 'reverted.txt', 'staged, then put back\n');
    write(root, 'pkg/sub.txt', 'staged in a subfolder\n');
    git(root, 'add', 'staged.txt', 'reverted.txt', 'pkg/sub.txt');
    write(root, 'reverted.txt', 'v\n');
    const b = await recordBaseline(root);
    for (const f of ['README.md', 'staged.txt', 'reverted.txt', 'pkg/sub.txt']) write(root, f, 'agent\n');
    expect(await changes(root, b)).toEqual(['modified README.md checkout', 'modified pkg/sub.txt rewrite', 'modified reverted.txt rewrite', 'modified staged.txt rewrite']);
    const sub = await recordBaseline(join(root, 'pkg'));
    write(root, 'pkg/sub.txt', 'again\n');
    expect(await changes(join(root, 'pkg'), sub)).toEqual(['modified sub.txt rewrite']);
  });

  it('still reports changes that the agent committed after the baseline', async () => {
    const root = repo();
    const b = await recordBaseline(root);
    write(root, 'src/a.ts', 'export const a = 2;\n');
    write(root, 'src/new.ts', 'x\n');
    unlinkSync(join(root, 'README.md'));
    commitAll(root, 'agent');
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(await changes(root, b)).toEqual(['deleted README.md checkout', 'modified src/a.ts checkout', 'created src/new.ts delete']);
  });

  it('works in a repository with no commits yet', async () => {
    const root = repo({});
    write(root, 'old.txt', 'before\n');
    write(root, 'staged.txt', 'staged\n');
    git(root, 'add', 'staged.txt');
    const b = await recordBaseline(root);
    expect(await changes(root, b)).toEqual([]);
    write(root, 'staged.txt', 'changed\n');
    write(root, 'new.txt', 'x\n');
    commitAll(root, 'first');
    expect(await changes(root, b)).toEqual(['created new.txt delete', 'modified staged.txt rewrite']);
  });

  it('handles names with spaces, unicode and object-prototype words', async () => {
    const root = repo({ 'docs/read me.md': 'r\n', 'données/café ☕.txt': 'c\n', constructor: 'k\n' });
    write(root, '__proto__', 'dirty at baseline\n');
    const b = await recordBaseline(root);
    expect(await changes(root, b)).toEqual([]);
    write(root, 'docs/read me.md', 'r2\n');
    write(root, 'données/café ☕.txt', 'c2\n');
    write(root, 'new file ✓.txt', 'n\n');
    write(root, 'constructor', 'k2\n');
    unlinkSync(join(root, '__proto__'));
    expect(await changes(root, b)).toEqual([
      'deleted __proto__ rewrite',
      'modified constructor checkout',
      'modified docs/read me.md checkout',
      'modified données/café ☕.txt checkout',
      'created new file ✓.txt delete',
    ]);
  });

  it('never reports excluded paths, whether files or folders', async () => {
    const root = repo();
    const opts = { exclude: ['.claude/settings.json', './gen/'] };
    const b = await recordBaseline(root, opts);
    write(root, '.claude/settings.json', '{}\n');
    write(root, 'gen/x/y.ts', 'y\n');
    write(root, 'src/a.ts', 'changed\n');
    expect(await changes(root, b, opts)).toEqual(['modified src/a.ts checkout']);
  });

  it("reports files of a nested repository as its folder's own, and the nested .git it created", async () => {
    const root = repo();
    const b = await recordBaseline(root);
    const nested = join(root, 'vendor/lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    write(nested, 'x.ts', 'x\n');
    expect(await changes(root, b)).toEqual(['created vendor/lib/.git delete', 'created vendor/lib/x.ts delete']);
    const b2 = await recordBaseline(root);
    write(nested, 'x.ts', 'x2\n');
    write(nested, '.git/hooks/post-checkout', '#!/bin/sh\n');
    expect(await changes(root, b2)).toEqual(['modified vendor/lib/x.ts rewrite']);
  });

  it('records a worktree the repository ignores as a plain folder, with every file in scope', async () => {
    const root = repo({ '.gitignore': 'scratch/\n*.tmp\n' });
    const wt = join(root, 'scratch');
    write(wt, 'a.txt', 'a\n');
    const b = await recordBaseline(wt);
    expect(b.git?.rules).toBeNull();
    write(wt, 'b.tmp', 'b\n');
    expect(await changes(wt, b)).toEqual(['created b.tmp delete']);
  });

  it("looks at the worktree's own repository even when GIT_DIR points elsewhere, as inside a git hook", async () => {
    const root = repo();
    const other = repo({ 'other.txt': 'o\n' });
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = join(other, '.git');
    try {
      const b = await recordBaseline(root);
      expect(b.git?.gitdir).toBe(join(root, '.git'));
      write(root, 'src/a.ts', 'changed\n');
      expect(await changes(root, b)).toEqual(['modified src/a.ts checkout']);
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });

  it('reports the repository removed at check time as its .git and control files deleted', async () => {
    const root = repo();
    const b = await recordBaseline(root);
    rmSync(join(root, '.git'), { recursive: true });
    const found = await changes(root, b);
    expect(found).toContain('deleted .git rewrite');
    expect(found).toContain('deleted .git/config rewrite');
  });

  it('refuses a baseline of an older format with a message that says what to do', async () => {
    const root = repo();
    const old = { kind: 'git', head: null, ignore: '', dirty: {} } as unknown as Parameters<typeof changedSince>[1];
    await expect(changedSince(root, old)).rejects.toThrow(/start a new session/);
  });
});

describe('plain folder (not a git worktree)', () => {
  function folder(): string {
    const root = tempDir();
    write(root, 'a.txt', 'alpha\n');
    write(root, 'sub/b.txt', 'bravo\n');
    write(root, 'sub/c.txt', 'charlie\n');
    return root;
  }

  it('reports nothing when the folder is unchanged', async () => {
    const root = folder();
    const b = await recordBaseline(root);
    expect(b.git).toBeNull();
    expect(await changes(root, b)).toEqual([]);
  });

  it('reports created, modified, deleted and renamed files, all written back or deleted', async () => {
    const root = folder();
    const b = await recordBaseline(root);
    write(root, 'a.txt', 'alpha, longer\n');
    write(root, 'sub/new.txt', 'n\n');
    unlinkSync(join(root, 'sub/b.txt'));
    renameSync(join(root, 'sub/c.txt'), join(root, 'c moved ✓.txt'));
    expect(await changes(root, b)).toEqual(['modified a.txt rewrite', 'created c moved ✓.txt delete', 'deleted sub/b.txt rewrite', 'deleted sub/c.txt rewrite', 'created sub/new.txt delete']);
  });

  it('skips the contents of .git folders and excluded paths, but reports a .git created in the session', async () => {
    const root = folder();
    write(root, 'sub/.git/HEAD', 'x\n');
    const opts = { exclude: ['hooks.json', 'cache'] };
    const b = await recordBaseline(root, opts);
    write(root, 'sub/.git/config', 'x\n');
    write(root, 'hooks.json', '{}\n');
    write(root, 'cache/x.bin', 'x\n');
    expect(await changes(root, b, opts)).toEqual([]);
    write(root, '.git/config', 'x\n');
    expect(await changes(root, b, opts)).toEqual(['created .git delete']);
  });

  it('records a symlink as its link text without following it', async () => {
    const root = folder();
    const outside = tempDir();
    write(outside, 'target.txt', 'one\n');
    symlinkSync(join(outside, 'target.txt'), join(root, 'link'));
    const b = await recordBaseline(root);
    write(outside, 'target.txt', 'two, different size\n');
    expect(await changes(root, b)).toEqual([]);
    unlinkSync(join(root, 'link'));
    symlinkSync(join(root, 'a.txt'), join(root, 'link'));
    expect(await changes(root, b)).toEqual(['modified link rewrite']);
  });

  it('reports a file rewritten or touched without a content change as unchanged', async () => {
    const root = folder();
    const b = await recordBaseline(root);
    write(root, 'a.txt', readFileSync(join(root, 'a.txt'), 'utf8'));
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'sub/b.txt'), later, later);
    expect(await changes(root, b)).toEqual([]);
  });

  it('takes a file whose size, mtime, ctime, inode and mode all match as unchanged without reading it', async () => {
    const root = folder();
    const b = await recordBaseline(root);
    const forged = structuredClone(b);
    const rec = forged.files.find((r) => r[0] === 'a.txt')!;
    rec[2] = 'A'.repeat(44);
    expect(await changes(root, forged)).toEqual([]);
  });

  it('catches a same-size rewrite whose mtime was put back with utimes, because ctime moved', async () => {
    const root = folder();
    const file = join(root, 'a.txt');
    const WHOLE_SECOND = 1_700_000_000; // exactly representable, so utimes can restore it to the nanosecond
    utimesSync(file, WHOLE_SECOND, WHOLE_SECOND);
    const b = await recordBaseline(root);
    await new Promise((r) => setTimeout(r, 50)); // step past the kernel's timestamp tick
    writeFileSync(file, 'ALPHA\n');
    utimesSync(file, WHOLE_SECOND, WHOLE_SECOND);
    const now = statSync(file, { bigint: true });
    const was = b.files.find((r) => r[0] === 'a.txt')![1]!.split(':');
    expect([now.size.toString(), now.mtimeNs.toString(), now.ino.toString()]).toEqual([was[0], was[1], was[3]]);
    expect(await changes(root, b)).toEqual(['modified a.txt rewrite']);
  });

  it('reports a mode change, even with the content unchanged', async () => {
    const root = folder();
    const b = await recordBaseline(root);
    chmodSync(join(root, 'a.txt'), 0o755);
    expect(await changes(root, b)).toEqual(['modified a.txt rewrite']);
  });
});
