// The warm scope cache: a change made between two checks that share a cache is found by the
// second exactly as a check from scratch finds it, and the cache is really used meanwhile.
import { readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ScopeCache } from '../../src/runtime/scope-cache.js';
import type { Baseline, Change } from '../../src/runtime/scope-baseline.js';
import { changedSince, git, recordBaseline, repo, write } from './scope-fixture.js';

/** A short racy margin, so a test waits a tenth of a second, not two, before its first check. */
const MARGIN_MS = 50;
const settle = (): Promise<void> => sleep(MARGIN_MS * 3);
const ALLOW = ['src/**'];
const show = (cs: Change[]): string[] => cs.map((c) => `${c.change} ${c.path} ${c.undo}`);

/** The second warm check (after `change`) and a check from scratch, which must agree. */
async function acrossChange(root: string, b: Baseline, cache: ScopeCache, change: () => void): Promise<string[]> {
  const first = show(await changedSince(root, b, { allow: ALLOW, cache }));
  change();
  const warm = show(await changedSince(root, b, { allow: ALLOW, cache }));
  const cold = show(await changedSince(root, b, { allow: ALLOW }));
  expect(warm).toEqual(cold);
  expect(warm).not.toEqual(first);
  return warm;
}

/** Gives `rel` a new stat key with the same bytes (a formatter that rewrote it unchanged): it must be hashed. */
function touch(root: string, rel: string): void {
  const file = join(root, rel);
  writeFileSync(file, readFileSync(file));
  const later = new Date(statSync(file).mtimeMs + 5_000);
  utimesSync(file, later, later);
}

describe('the warm scope cache', () => {
  it('hashes a rewritten-but-equal file once, then answers from the cache while its stat key holds', async () => {
    const root = repo({ 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    touch(root, 'README.md');
    await settle();
    const cache = new ScopeCache(MARGIN_MS);
    expect(await changedSince(root, b, { allow: ALLOW, cache })).toEqual([]);
    expect(cache).toMatchObject({ hashed: 1, hits: 0 });
    expect(await changedSince(root, b, { allow: ALLOW, cache })).toEqual([]);
    expect(cache).toMatchObject({ hashed: 1, hits: 1 });
  });

  it('finds an in-place rewrite that keeps the size and puts the mtime back, in a file it had hashed', async () => {
    const root = repo({ 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    touch(root, 'README.md');
    await settle();
    const cache = new ScopeCache(MARGIN_MS);
    await changedSince(root, b, { allow: ALLOW, cache });
    const file = join(root, 'README.md');
    const warm = await acrossChange(root, b, cache, () => {
      const st = statSync(file);
      writeFileSync(file, 'HELLO\n');
      utimesSync(file, st.atime, st.mtime);
    });
    expect(warm).toEqual(['modified README.md checkout']);
    expect(cache.hits).toBe(1);
    expect(cache.hashed).toBe(2);
  });

  it('keeps no verdict on a file changed within the racy margin: it is hashed again at the next check', async () => {
    const root = repo({ 'README.md': 'hello\n' });
    const b = await recordBaseline(root);
    touch(root, 'README.md');
    const cache = new ScopeCache(60_000);
    await changedSince(root, b, { cache });
    await changedSince(root, b, { cache });
    expect(cache).toMatchObject({ hashed: 2, hits: 0 });
  });

  it('finds a new file in a new folder and a deleted file', async () => {
    const root = repo({ 'README.md': 'hello\n', 'docs/guide.md': 'g\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    const cache = new ScopeCache(MARGIN_MS);
    const warm = await acrossChange(root, b, cache, () => {
      write(root, 'fresh/deep/planted.sh', 'echo hi\n');
      rmSync(join(root, 'docs', 'guide.md'));
    });
    expect(warm).toEqual(['deleted docs/guide.md checkout', 'created fresh/deep/planted.sh delete']);
  });

  it('judges by the ignore rules frozen at baseline whether a .gitignore now ignores or un-ignores a file', async () => {
    const root = repo({ '.gitignore': 'build/\n', 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    write(root, 'build/out.js', 'old\n');
    const b = await recordBaseline(root, { allow: ALLOW });
    const cache = new ScopeCache(MARGIN_MS);
    const warm = await acrossChange(root, b, cache, () => {
      // Un-ignores build/ and ignores README.md: neither changes what is in scope.
      writeFileSync(join(root, '.gitignore'), 'README.md\n');
      write(root, 'build/out.js', 'new\n');
      writeFileSync(join(root, 'README.md'), 'edited\n');
    });
    expect(warm).toEqual(['modified .gitignore checkout', 'modified README.md checkout']);
  });

  it('finds a symlink swapped for one with another target of the same length, after hashing the link', async () => {
    const root = repo({ 'README.md': 'hello\n', a: 'A\n', b: 'B\n' });
    symlinkSync('a', join(root, 'current'));
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '--no-gpg-sign', '-m', 'link');
    const b = await recordBaseline(root);
    // The same link made again: a new stat key, the same target, so it is hashed and kept.
    rmSync(join(root, 'current'));
    symlinkSync('a', join(root, 'current'));
    await settle();
    const cache = new ScopeCache(MARGIN_MS);
    expect(await changedSince(root, b, { cache })).toEqual([]);
    const warm = await acrossChange(root, b, cache, () => {
      rmSync(join(root, 'current'));
      symlinkSync('b', join(root, 'current'));
    });
    expect(warm).toEqual(['modified current checkout']);
    expect(cache.hits).toBe(1);
  });

  it('finds a change git is told to hide through .git/index and .git/config', async () => {
    const root = repo({ 'README.md': 'hello\n', 'notes.txt': 'n\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    touch(root, 'notes.txt');
    await settle();
    const cache = new ScopeCache(MARGIN_MS);
    expect(await changedSince(root, b, { allow: ALLOW, cache })).toEqual([]);
    const warm = await acrossChange(root, b, cache, () => {
      git(root, 'update-index', '--assume-unchanged', 'notes.txt');
      const st = statSync(join(root, 'notes.txt'));
      writeFileSync(join(root, 'notes.txt'), 'N\n');
      utimesSync(join(root, 'notes.txt'), st.atime, st.mtime);
      git(root, 'config', 'core.trustctime', 'false');
    });
    expect(warm).toEqual(['modified .git/config rewrite', 'modified notes.txt checkout']);
  });
});
