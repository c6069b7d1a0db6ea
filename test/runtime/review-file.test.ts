// The file an approval card diffs against is read as the agent may have arranged it: through a
// folder link that leaves the worktree, a link at the file, a FIFO, a binary: none is followed or shown.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readForReview } from '../../src/runtime/review-file.js';

let base: string;
let worktree: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'gh-review-')));
  worktree = join(base, 'wt');
  outside = join(base, 'home', '.ssh');
  mkdirSync(join(worktree, 'src'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'id_ed25519'), 'SECRET-KEY-MATERIAL\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('readForReview', () => {
  it('reads a text file inside the worktree, and says when there is none yet', () => {
    writeFileSync(join(worktree, 'src', 'a.ts'), 'export const a = 1;\n');
    expect(readForReview(worktree, 'src/a.ts')).toEqual({ kind: 'text', text: 'export const a = 1;\n' });
    expect(readForReview(worktree, 'src/new.ts')).toEqual({ kind: 'missing' });
    expect(readForReview(worktree, 'src/deeper/new.ts')).toEqual({ kind: 'missing' });
  });

  it('does not read through a folder link that leaves the worktree', () => {
    symlinkSync(outside, join(worktree, 'src', 'keys'));
    const r = readForReview(worktree, 'src/keys/id_ed25519');
    expect(r).toMatchObject({ kind: 'unreadable', why: expect.stringContaining('symbolic link that leaves the worktree') });
    expect(JSON.stringify(r)).not.toContain('SECRET-KEY-MATERIAL');
  });

  it('does not follow a link at the file, nor read a FIFO, a binary or a path outside', () => {
    symlinkSync(join(outside, 'id_ed25519'), join(worktree, 'src', 'k.ts'));
    expect(readForReview(worktree, 'src/k.ts')).toMatchObject({ kind: 'unreadable', why: expect.stringContaining('symbolic link') });
    execFileSync('mkfifo', [join(worktree, 'src', 'pipe')]);
    expect(readForReview(worktree, 'src/pipe')).toMatchObject({ kind: 'unreadable', why: 'not a regular file' });
    writeFileSync(join(worktree, 'src', 'bin'), Buffer.from([1, 0, 2]));
    expect(readForReview(worktree, 'src/bin')).toMatchObject({ kind: 'unreadable', why: 'it is a binary file' });
    expect(readForReview(worktree, '../home/.ssh/id_ed25519')).toMatchObject({ kind: 'unreadable', why: 'it is outside the worktree' });
  });
});
