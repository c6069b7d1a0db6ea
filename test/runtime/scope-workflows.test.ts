import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowMatcher, changedSince, differsFromBaseline } from '../../src/runtime/scope-baseline.js';
import { commitAll, git, recordBaseline, repo, write } from './scope-fixture.js';

// Ordinary git work inside the allowlist writes objects, refs, the index and logs under
// .git: none of it may count as a change outside the allowlist.

const ALLOW = ['src/**'];

async function outside(root: string, b: Awaited<ReturnType<typeof recordBaseline>>): Promise<string[]> {
  const allowed = allowMatcher(ALLOW);
  return (await changedSince(root, b, { allow: ALLOW })).filter((c) => !allowed(c.path)).map((c) => `${c.change} ${c.path}`);
}

describe('legitimate work inside the allowlist', () => {
  it('passes commits, amends, tags and a gc', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'src/a.ts', 'export const a = 2;\n');
    write(root, 'src/b.ts', 'export const b = 1;\n');
    commitAll(root, 'work');
    git(root, 'commit', '-q', '--amend', '--no-gpg-sign', '-m', 'work, amended');
    git(root, 'tag', 'v1');
    git(root, 'gc', '-q');
    expect(await outside(root, b)).toEqual([]);
    expect((await changedSince(root, b, { allow: ALLOW })).map((c) => c.path)).toEqual(['src/a.ts', 'src/b.ts']);
  });

  // `git gc --auto`, which `git commit` starts in the background once loose objects pile up,
  // ends by rewriting info/refs through a temporary info/refs_XXXXXX: a Stop can walk .git/info
  // in that moment.
  it('passes a gc caught while it rewrites info/refs, its temporary file still there', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'src/a.ts', 'export const a = 2;\n');
    write(root, '.git/info/refs_Hz0pWk', 'deadbeef\trefs/heads/main\n');
    write(root, '.git/info/refs', 'deadbeef\trefs/heads/main\n');
    // The same in a submodule's git dir (a HEAD file makes .git/modules/lib one).
    write(root, '.git/modules/lib/HEAD', 'ref: refs/heads/main\n');
    write(root, '.git/modules/lib/info/refs_a1B2c3', 'deadbeef\trefs/heads/main\n');
    expect(await outside(root, b)).toEqual([]);
    expect(differsFromBaseline(root, b, join(root, '.git/info/refs_Hz0pWk'))).toBe(false);
  });

  it("still reports any other new file in .git/info, however close its name is to git's temporary one", async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    for (const name of ['refs_abc', 'refs_abcdefg', 'refs-Hz0pWk', 'refs_Hz0p.k', 'attributes']) write(root, `.git/info/${name}`, '* -diff\n');
    write(root, '.git/modules/lib/HEAD', 'ref: refs/heads/main\n');
    write(root, '.git/modules/lib/info/refs_a1B2c3x', '* -diff\n');
    expect(await outside(root, b)).toEqual([
      'created .git/info/attributes',
      'created .git/info/refs-Hz0pWk',
      'created .git/info/refs_Hz0p.k',
      'created .git/info/refs_abc',
      'created .git/info/refs_abcdefg',
      'created .git/modules/lib/info/refs_a1B2c3x',
    ]);
    expect(differsFromBaseline(root, b, join(root, '.git/info/refs_abcdefg'))).toBe(true);
  });

  it('passes git stash and stash pop', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'src/a.ts', 'work in progress\n');
    git(root, 'stash', 'push', '-q');
    expect(await outside(root, b)).toEqual([]);
    git(root, 'stash', 'pop', '-q');
    expect(await outside(root, b)).toEqual([]);
  });

  it('passes a branch switch between branches that differ only inside the allowlist', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    git(root, 'switch', '-q', '-c', 'feature');
    write(root, 'src/feature.ts', 'f\n');
    commitAll(root, 'feature');
    git(root, 'switch', '-q', 'main');
    git(root, 'merge', '-q', '--no-gpg-sign', '--no-edit', 'feature');
    git(root, 'switch', '-q', 'feature');
    expect(await outside(root, b)).toEqual([]);
  });

  it('still reports a branch switch that changes a file outside the allowlist', async () => {
    const root = repo();
    git(root, 'switch', '-q', '-c', 'other');
    write(root, 'README.md', 'other branch\n');
    commitAll(root, 'other');
    git(root, 'switch', '-q', 'main');
    const b = await recordBaseline(root, { allow: ALLOW });
    git(root, 'switch', '-q', 'other');
    expect(await outside(root, b)).toEqual(['modified README.md']);
    git(root, 'switch', '-q', 'main');
    expect(await outside(root, b)).toEqual([]);
  });

  it('lets the way back through: git checkout restores a clean file, and deleting a created one clears it', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'README.md', 'oops\n');
    write(root, 'stray.txt', 'x\n');
    expect(await outside(root, b)).toEqual(['modified README.md', 'created stray.txt']);
    git(root, 'checkout', '--', 'README.md');
    git(root, 'clean', '-q', '-f', '--', join(root, 'stray.txt'));
    expect(await outside(root, b)).toEqual([]);
  });
});
