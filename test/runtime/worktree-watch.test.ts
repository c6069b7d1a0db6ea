// The worktree watch (inotify): a warm check that reads only what the kernel named finds every
// change an agent can make exactly as a check from scratch does, including the ones that raise
// no event in the worktree's folders (a hard link from outside, a shared writable mapping).
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScopeBudgetError, type Baseline, type Change } from '../../src/runtime/scope-baseline.js';
import { ScopeCache, watchWorktrees } from '../../src/runtime/scope-cache.js';
import { loadInotify } from '../../src/runtime/inotify.js';
import type { WorktreeWatch } from '../../src/runtime/worktree-watch.js';
import { changedSince, recordBaseline, repo, tempDir, write } from './scope-fixture.js';

const ALLOW = ['src/**'];
const show = (cs: Change[]): string[] => cs.map((c) => `${c.change} ${c.path} ${c.undo}`).sort();
const inotify = loadInotify(join(process.cwd(), 'dist/native/inotify.node'));

// Built by the test setup (scripts/build-native.mjs) where a C compiler is installed; without one the watch is off and these are skipped.
beforeAll(() => watchWorktrees(inotify));
afterAll(() => watchWorktrees(null));

/** A repository of 120 files in nested folders, its baseline, and a warm cache that has checked it once. */
async function watched(): Promise<{ root: string; b: Baseline; cache: ScopeCache; watch: WorktreeWatch; check: () => Promise<string[]> }> {
  const files: Record<string, string> = { 'README.md': 'hello\n', 'docs/guide.md': 'guide\n' };
  for (let d = 0; d < 6; d++) for (let f = 0; f < 20; f++) files[`${d % 2 === 0 ? 'src' : 'lib'}/m${d}/f${f}.ts`] = `export const v = ${d * 100 + f};\n`;
  const root = repo(files);
  const b = await recordBaseline(root, { allow: ALLOW });
  const cache = new ScopeCache();
  const check = async (): Promise<string[]> => show(await changedSince(root, b, { allow: ALLOW, cache }));
  expect(await check()).toEqual([]);
  const watch = cache.worktreeWatch(root);
  expect(watch).not.toBeNull();
  return { root, b, cache, watch: watch!, check };
}

/** The warm check after `change`, which must equal a check from scratch and differ from none. */
async function afterChange(w: Awaited<ReturnType<typeof watched>>, change: () => void | Promise<void>): Promise<string[]> {
  await change();
  const warm = await w.check();
  expect(warm).toEqual(show(await changedSince(w.root, w.b, { allow: ALLOW })));
  expect(warm).not.toEqual([]);
  return warm;
}

describe.skipIf(inotify === null)('the worktree watch', () => {
  it('reads again only what changed: one edit costs a few lstats, not one per file', async () => {
    const w = await watched();
    const before = w.watch.read;
    expect(before).toBeGreaterThan(120);
    expect(await afterChange(w, () => writeFileSync(join(w.root, 'lib/m1/f3.ts'), 'changed\n'))).toEqual(['modified lib/m1/f3.ts checkout']);
    expect(w.watch.read - before).toBeLessThan(5);
    const quiet = w.watch.read;
    expect(await w.check()).toEqual(['modified lib/m1/f3.ts checkout']);
    expect(w.watch.read - quiet).toBe(0);
    expect(w.watch.fullWalks).toBe(1);
  });

  it('finds an in-place rewrite that keeps the size and puts the mtime back', async () => {
    const w = await watched();
    const file = join(w.root, 'README.md');
    const st = statSync(file);
    expect(
      await afterChange(w, () => {
        writeFileSync(file, 'HELLO\n');
        utimesSync(file, st.atime, st.mtime);
      }),
    ).toEqual(['modified README.md checkout']);
  });

  it('finds a write through a hard link made outside the worktree after the watch began', async () => {
    const w = await watched();
    const outside = join(tempDir(), 'alias');
    linkSync(join(w.root, 'lib/m3/f0.ts'), outside);
    expect(await w.check()).toEqual([]); // a new link moves ctime, and the bytes are the same
    expect(await afterChange(w, () => writeFileSync(outside, 'export const v = 999;\n'))).toEqual(['modified lib/m3/f0.ts checkout']);
  });

  it('finds renames over a file, new and removed folders, and a folder moved out, edited and moved back', async () => {
    const w = await watched();
    expect(
      await afterChange(w, () => {
        writeFileSync(join(w.root, 'docs/.tmp'), 'new guide\n');
        renameSync(join(w.root, 'docs/.tmp'), join(w.root, 'docs/guide.md'));
        write(w.root, 'lib/new/deep/x.ts', 'x\n');
        rmSync(join(w.root, 'lib/m5'), { recursive: true });
        renameSync(join(w.root, 'lib/m1'), join(w.root, 'lib-away'));
        writeFileSync(join(w.root, 'lib-away/f7.ts'), 'edited away\n');
        renameSync(join(w.root, 'lib-away'), join(w.root, 'lib/m1'));
      }),
    ).toContain('modified lib/m1/f7.ts checkout');
    const all = await w.check();
    expect(all).toContain('created lib/new/deep/x.ts delete');
    expect(all).toContain('deleted lib/m5/f0.ts checkout');
    expect(all).toContain('modified docs/guide.md checkout');
  });

  it('finds a mode change, a file turned into a symlink or a folder, and a name that is not UTF-8', async () => {
    const w = await watched();
    expect(
      await afterChange(w, () => {
        chmodSync(join(w.root, 'lib/m1/f1.ts'), 0o755);
        rmSync(join(w.root, 'lib/m1/f2.ts'));
        symlinkSync('/etc/passwd', join(w.root, 'lib/m1/f2.ts'));
        rmSync(join(w.root, 'lib/m3/f2.ts'));
        mkdirSync(join(w.root, 'lib/m3/f2.ts'));
        writeFileSync(Buffer.concat([Buffer.from(`${w.root}/lib/m3/`), Buffer.from([0xff, 0x41])]), 'bytes\n');
      }),
    ).toEqual(['created lib/m3/\\xffA delete', 'deleted lib/m3/f2.ts checkout', 'modified lib/m1/f1.ts checkout', 'modified lib/m1/f2.ts checkout']);
  });

  it('finds writes through a shared mapping made before the watch began, and one made after', async () => {
    const root = repo({ 'README.md': 'hello\n', 'NOTES.md': 'notes\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    const early = await mapper(join(root, 'README.md'));
    const cache = new ScopeCache();
    const check = async (): Promise<string[]> => show(await changedSince(root, b, { allow: ALLOW, cache }));
    try {
      expect(await check()).toEqual([]);
      const late = await mapper(join(root, 'NOTES.md'));
      try {
        expect(await check()).toEqual([]);
        await early.say('write');
        await late.say('write');
        expect(await check()).toEqual(['modified NOTES.md checkout', 'modified README.md checkout']);
        expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('Xello\n');
      } finally {
        late.child.kill();
      }
    } finally {
      early.child.kill();
    }
  });

  it('finds writes through a mapping made after the watch began from a file opened read-write before it', async () => {
    const root = repo({ 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    const held = await mapper(join(root, 'README.md'), 'later');
    const cache = new ScopeCache();
    const check = async (): Promise<string[]> => show(await changedSince(root, b, { allow: ALLOW, cache }));
    try {
      expect(await check()).toEqual([]);
      await held.say('map');
      expect(await check()).toEqual([]);
      await held.say('write');
      expect(await check()).toEqual(['modified README.md checkout']);
    } finally {
      held.child.kill();
    }
  });

  it('finds writes through a mapping opened after the watch whose open was cancelled out by closing a descriptor from before it', async () => {
    const root = repo({ 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    // Open read-only before the watch: its close raises an event the watch counts against opens it saw.
    const reader = await mapper(join(root, 'README.md'), 'later', 'rb');
    const cache = new ScopeCache();
    const check = async (): Promise<string[]> => show(await changedSince(root, b, { allow: ALLOW, cache }));
    try {
      expect(await check()).toEqual([]);
      const writer = await mapper(join(root, 'README.md'), 'later');
      try {
        await reader.say('close');
        expect(await check()).toEqual([]);
        await writer.say('map');
        await writer.say('write');
        expect(await check()).toEqual(['modified README.md checkout']);
      } finally {
        writer.child.kill();
      }
    } finally {
      reader.child.kill();
    }
  });

  it.skipIf(!canBindMount())('walks everything again after a mount appears over a folder or goes away, which raises no event', async () => {
    const w = await watched();
    const over = tempDir();
    writeFileSync(join(over, 'f0.ts'), 'mounted\n');
    execFileSync('mount', ['--bind', over, join(w.root, 'lib/m1')]);
    let mounted = true;
    try {
      const during = await afterChange(w, () => {});
      expect(during).toContain('modified lib/m1/f0.ts checkout');
      expect(during).toContain('deleted lib/m1/f1.ts checkout');
      execFileSync('umount', [join(w.root, 'lib/m1')]);
      mounted = false;
      expect(await w.check()).toEqual(show(await changedSince(w.root, w.b, { allow: ALLOW })));
      expect(await w.check()).toEqual([]);
    } finally {
      if (mounted) execFileSync('umount', [join(w.root, 'lib/m1')]);
    }
  });

  it('walks everything again after the kernel queue overflowed, and still finds every change', async () => {
    const w = await watched();
    const busy = join(w.root, 'src/m0/f0.ts');
    // 20,000 writes with no chance to drain: more events than the kernel queues (16,384).
    for (let i = 0; i < 20_000; i++) writeFileSync(busy, `export const v = ${i};\n`);
    expect(await afterChange(w, () => writeFileSync(join(w.root, 'lib/m1/f0.ts'), 'late\n'))).toEqual(['modified lib/m1/f0.ts checkout', 'modified src/m0/f0.ts rewrite']);
    expect(w.watch.fullWalks).toBe(2);
  });

  it('reads again, after a check that ran out of time, what that check had to read', async () => {
    const w = await watched();
    writeFileSync(join(w.root, 'lib/m3/f9.ts'), 'changed\n');
    await expect(changedSince(w.root, w.b, { allow: ALLOW, cache: w.cache, deadline: Date.now() - 1 })).rejects.toBeInstanceOf(ScopeBudgetError);
    expect(await w.check()).toEqual(['modified lib/m3/f9.ts checkout']);
  });

  it('replays a folder nothing below has changed: a quiet check walks no folder, an edit walks only the folders above it', async () => {
    const w = await watched();
    const { journal } = w.cache;
    const inOrder = async (): Promise<string[]> => {
      const warm = (await changedSince(w.root, w.b, { allow: ALLOW, cache: w.cache })).map((c) => `${c.change} ${c.path}`);
      expect(warm).toEqual((await changedSince(w.root, w.b, { allow: ALLOW })).map((c) => `${c.change} ${c.path}`));
      return warm;
    };
    writeFileSync(join(w.root, 'lib/m1/f3.ts'), 'changed\n');
    writeFileSync(join(w.root, 'src/m0/f3.ts'), 'changed\n');
    write(w.root, 'lib/m3/new.ts', 'new\n');
    expect(await inOrder()).toEqual(['modified lib/m1/f3.ts', 'created lib/m3/new.ts', 'modified src/m0/f3.ts']);
    const before = { read: w.watch.read, replayed: journal.replayed };
    // Nothing since: the whole tree is one replay, its changes still reported, and in walk order.
    expect(await inOrder()).toEqual(['modified lib/m1/f3.ts', 'created lib/m3/new.ts', 'modified src/m0/f3.ts']);
    expect({ read: w.watch.read - before.read, replayed: journal.replayed - before.replayed }).toEqual({ read: 0, replayed: 1 });
    // One edit in lib/m5: the root, lib and lib/m5 are walked; docs, src, lib/m1 and lib/m3 are replayed.
    writeFileSync(join(w.root, 'lib/m5/f0.ts'), 'changed\n');
    const edited = journal.replayed;
    expect(await inOrder()).toEqual(['modified lib/m1/f3.ts', 'created lib/m3/new.ts', 'modified lib/m5/f0.ts', 'modified src/m0/f3.ts']);
    expect(journal.replayed - edited).toBe(4);
    // Undone: a replay never keeps a change that is gone.
    writeFileSync(join(w.root, 'lib/m1/f3.ts'), 'export const v = 103;\n');
    rmSync(join(w.root, 'lib/m3/new.ts'));
    expect(await inOrder()).toEqual(['modified lib/m5/f0.ts', 'modified src/m0/f3.ts']);
  });

  it('replays nothing that an ignored folder, a nested .git or a folder made unreadable would change', async () => {
    const root = repo({ '.gitignore': 'out/\n', 'out/keep.log': 'log\n', 'README.md': 'hello\n', 'src/a.ts': 'a\n', 'vendor/sub/x.c': 'int x;\n' });
    writeFileSync(join(root, 'vendor/sub/.git'), 'gitdir: ../../.git/modules/sub\n');
    const b = await recordBaseline(root, { allow: ALLOW });
    const cache = new ScopeCache();
    const step = async (change: () => void): Promise<string[]> => {
      change();
      const warm = show(await changedSince(root, b, { allow: ALLOW, cache }));
      expect(warm).toEqual(show(await changedSince(root, b, { allow: ALLOW })));
      expect(show(await changedSince(root, b, { allow: ALLOW, cache }))).toEqual(warm); // and again, replayed
      return warm;
    };
    expect(await step(() => {})).toEqual([]);
    expect(await step(() => writeFileSync(join(root, 'out/new.log'), 'ignored\n'))).toEqual([]);
    expect(await step(() => writeFileSync(join(root, 'out/keep.log'), 'LOG\n'))).toEqual(show(await changedSince(root, b, { allow: ALLOW })));
    expect(await step(() => writeFileSync(join(root, 'vendor/sub/.git'), 'gitdir: /elsewhere\n'))).toContain('modified vendor/sub/.git rewrite');
    // As root the folder is still listed; as anyone else it is not: either way, as a check from scratch says.
    await step(() => chmodSync(join(root, 'vendor'), 0o000));
    expect(await step(() => chmodSync(join(root, 'vendor'), 0o755))).toContain('modified vendor/sub/.git rewrite');
    expect(cache.journal.replayed).toBeGreaterThan(0);
  });

  it('watches nothing in a host that has not asked to, and gives its watch back when the cache is closed', async () => {
    const w = await watched();
    w.cache.close();
    expect(w.watch.active).toBe(false);
    watchWorktrees(null);
    try {
      expect(new ScopeCache().worktreeWatch(w.root)).toBeNull();
    } finally {
      watchWorktrees(inotify);
    }
  });
});

/** Whether this process may bind-mount (root with CAP_SYS_ADMIN in its mount namespace). */
function canBindMount(): boolean {
  const dir = tempDir();
  mkdirSync(join(dir, 'a'));
  try {
    execFileSync('mount', ['--bind', dir, join(dir, 'a')], { stdio: 'ignore' });
    execFileSync('umount', [join(dir, 'a')], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A python3 process that opens `file` read-write (or read-only, `rb`) and maps it shared and
 * writable (at once, or when told `map`), writes through the mapping when told `write`, and
 * closes its descriptor when told `close`.
 */
async function mapper(file: string, mapAt: 'now' | 'later' = 'now', mode: 'r+b' | 'rb' = 'r+b'): Promise<{ child: ChildProcessWithoutNullStreams; say: (line: string) => Promise<void> }> {
  const script = [
    'import mmap, sys',
    `f = open(${JSON.stringify(file)}, '${mode}')`,
    'm = None',
    'def map():',
    '    global m',
    '    m = mmap.mmap(f.fileno(), 0)',
    ...(mapAt === 'now' ? ['map()', 'f.close()'] : []),
    "print('ready', flush=True)",
    'for line in sys.stdin:',
    "    if line.strip() == 'map':",
    '        map()',
    "    elif line.strip() == 'close':",
    '        f.close()',
    '    else:',
    "        m[0:1] = b'X'",
    "    print('done', flush=True)",
  ].join('\n');
  const child = spawn('python3', ['-c', script]);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => String((await lines.next()).value);
  expect(await next()).toBe('ready');
  return {
    child,
    say: async (line) => {
      child.stdin.write(`${line}\n`);
      expect(await next()).toBe('done');
    },
  };
}
