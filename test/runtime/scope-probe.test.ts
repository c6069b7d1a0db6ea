import { mkdirSync, symlinkSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { differsFromBaseline } from '../../src/runtime/scope-baseline.js';
import { git, recordBaseline, repo, tempDir, write } from './scope-fixture.js';

const ALLOW = ['src/**'];

describe('differsFromBaseline', () => {
  it('is false for files unchanged since the baseline (a touch included), true once they differ or are gone', async () => {
    const root = repo();
    write(root, 'notes.txt', 'dirty at baseline\n');
    const b = await recordBaseline(root, { allow: ALLOW });
    const at = (rel: string): boolean => differsFromBaseline(root, b, join(root, rel));
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'README.md'), later, later);
    expect([at('README.md'), at('notes.txt')]).toEqual([false, false]);
    write(root, 'README.md', 'changed\n');
    unlinkSync(join(root, 'notes.txt'));
    expect([at('README.md'), at('notes.txt')]).toEqual([true, true]);
    write(root, 'notes.txt', 'dirty at baseline\n');
    expect(at('notes.txt')).toBe(false);
  });

  it('is true for a file created in scope, false where the baseline rules ignored it or for a folder', async () => {
    const root = repo({ '.gitignore': 'dist/\n*.log\n', 'README.md': 'r\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'new.txt', 'n\n');
    write(root, 'dist/out.js', 'o\n');
    write(root, 'deep/x.log', 'l\n');
    write(root, '.gitignore', 'new.txt\n'); // rules written since change nothing
    const at = (rel: string): boolean => differsFromBaseline(root, b, join(root, rel));
    expect([at('new.txt'), at('dist/out.js'), at('deep/x.log'), at('deep'), at('absent.txt')]).toEqual([true, false, false, false, false]);
  });

  it('answers for git control files: unchanged, edited, created', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    const at = (rel: string): boolean => differsFromBaseline(root, b, join(root, rel));
    expect([at('.git/config'), at('.git/hooks/pre-commit'), at('.git/index'), at('.git/HEAD')]).toEqual([false, false, false, false]);
    git(root, 'config', 'core.hooksPath', '/tmp/x');
    write(root, '.git/hooks/pre-commit', '#!/bin/sh\n');
    expect([at('.git/config'), at('.git/hooks/pre-commit'), at('.git/index')]).toEqual([true, true, false]);
  });

  it('is false outside the worktree and through a symlinked folder, which the check does not follow', async () => {
    const root = repo();
    const elsewhere = tempDir();
    write(elsewhere, 'target.txt', 't\n');
    symlinkSync(elsewhere, join(root, 'linked'));
    const b = await recordBaseline(root, { allow: ALLOW });
    write(elsewhere, 'target.txt', 'changed\n');
    expect(differsFromBaseline(root, b, join(elsewhere, 'target.txt'))).toBe(false);
    expect(differsFromBaseline(root, b, join(root, 'linked/target.txt'))).toBe(false);
    mkdirSync(join(root, 'real'));
    write(root, 'real/x.txt', 'x\n');
    expect(differsFromBaseline(root, b, join(root, 'real/x.txt'))).toBe(true);
  });

  it('works for a plain folder', async () => {
    const root = tempDir();
    write(root, 'a.txt', 'a\n');
    const b = await recordBaseline(root, { allow: ALLOW });
    expect(differsFromBaseline(root, b, join(root, 'a.txt'))).toBe(false);
    write(root, 'a.txt', 'A\n');
    write(root, 'b.txt', 'b\n');
    expect([differsFromBaseline(root, b, join(root, 'a.txt')), differsFromBaseline(root, b, join(root, 'b.txt'))]).toEqual([true, true]);
  });
});
