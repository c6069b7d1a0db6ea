// The unified diff a person reads (a session's changes, an approval card's edit): its hunks
// rebuild the new text from the old one, it is as short as GNU diff's, and its hunk headers count
// lines as `diff -u` does.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedDiff, unifiedHunks } from '../../src/core/line-diff.js';

/** Applies unified hunks to `old`, as `patch` would, checking every context and removed line. */
function apply(old: string, hunks: string): string {
  if (hunks === '') return old;
  const lines = old === '' ? [] : old.split(/(?<=\n)/);
  const out: string[] = [];
  let at = 0;
  const body = hunks.split('\n');
  for (let i = 0; i < body.length; i++) {
    const head = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(body[i]!);
    if (head === null) throw new Error(`not a hunk header: ${body[i]}`);
    const start = Number(head[2]) === 0 ? Number(head[1]) : Number(head[1]) - 1;
    while (at < start) out.push(lines[at++]!);
    for (i++; i < body.length && !body[i]!.startsWith('@@'); i++) {
      const line = body[i]!;
      const noEol = body[i + 1] === '\\ No newline at end of file';
      const text = line.slice(1) + (noEol ? '' : '\n');
      if (noEol) i++;
      if (line[0] === '+') out.push(text);
      else {
        expect(lines[at]).toBe(text);
        if (line[0] === ' ') out.push(text);
        at++;
      }
    }
    i--;
  }
  while (at < lines.length) out.push(lines[at++]!);
  return out.join('');
}

describe('unifiedHunks', () => {
  it('shows one changed line with three lines of context either side', () => {
    const old = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n') + '\n';
    expect(unifiedHunks(old, old.replace('e', 'E'), 100)).toBe('@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h');
  });

  it('marks a last line without a newline, as git does', () => {
    expect(unifiedHunks('a\n', 'a\nb', 100)).toBe('@@ -1,1 +1,2 @@\n a\n+b\n\\ No newline at end of file');
  });

  it('is empty for equal texts and null past the edit limit', () => {
    expect(unifiedHunks('x\ny\n', 'x\ny\n', 10)).toBe('');
    expect(unifiedHunks('a\nb\nc\n', 'x\ny\nz\n', 3)).toBeNull();
    // A created file costs nothing however long it is.
    expect(unifiedHunks('', 'l\n'.repeat(5000), 3)?.split('\n')).toHaveLength(5001);
  });

  it('keeps changes far apart in separate hunks', () => {
    const old = Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n') + '\n';
    const hunks = unifiedHunks(old, old.replace('l2\n', 'X\n').replace('l27\n', 'Y\n'), 100)!;
    expect(hunks.split('\n').filter((l) => l.startsWith('@@'))).toEqual(['@@ -1,6 +1,6 @@', '@@ -25,6 +25,6 @@']);
  });

  it('rebuilds the new text from the old for any two texts', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '', 'a b'), { maxLength: 25 }).chain((lines) => fc.boolean().map((eol) => (lines.length === 0 ? '' : lines.join('\n') + (eol ? '\n' : ''))));
    fc.assert(
      fc.property(text, text, (a, b) => {
        const hunks = unifiedHunks(a, b, 1000);
        expect(hunks).not.toBeNull();
        expect(apply(a, hunks!)).toBe(b);
      }),
      { numRuns: 400 },
    );
  });
});

/** Applies unified hunks to `before`, checking every kept and removed line against it. */
function applyCard(before: string, diff: string): string {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let ai = 0;
  const lines = diff === '' ? [] : diff.replace(/\n$/, '').split('\n');
  for (let i = 0; i < lines.length;) {
    const m = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(lines[i]!);
    if (m === null) throw new Error(`not a hunk header: ${lines[i]}`);
    const [aStart, aCount, , bCount] = m.slice(1).map(Number) as [number, number, number, number];
    const from = aCount === 0 ? aStart : aStart - 1;
    while (ai < from) out.push(a[ai++]!);
    let seenA = 0;
    let seenB = 0;
    for (i++; i < lines.length && !lines[i]!.startsWith('@@'); i++) {
      const op = lines[i]![0];
      const text = lines[i]!.slice(1);
      if (op === '+') {
        out.push(text);
        seenB++;
        continue;
      }
      expect(a[ai]).toBe(text);
      ai++;
      seenA++;
      if (op === ' ') {
        out.push(text);
        seenB++;
      }
    }
    expect([seenA, seenB]).toEqual([aCount, bCount]);
  }
  while (ai < a.length) out.push(a[ai++]!);
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** Lines GNU diff changes between two texts (added + removed). */
function gnuChanged(dir: string, before: string, after: string): number {
  writeFileSync(join(dir, 'a'), before);
  writeFileSync(join(dir, 'b'), after);
  let out = '';
  try {
    out = execFileSync('diff', ['-u', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return out
    .split('\n')
    .slice(2)
    .filter((l) => (l.startsWith('+') || l.startsWith('-')) && !l.startsWith('\\')).length;
}

/** A small deterministic pseudo-random source (the test must reproduce). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('unifiedDiff', () => {
  it('prints hunks as diff -u does', () => {
    expect(unifiedDiff('a\nb\nc\n', 'a\nB\nc\n').text).toBe('@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
    expect(unifiedDiff('', 'x\ny\n')).toEqual({ text: '@@ -0,0 +1,2 @@\n+x\n+y\n', added: 2, removed: 0 });
    expect(unifiedDiff('x\n', '')).toEqual({ text: '@@ -1,1 +0,0 @@\n-x\n', added: 0, removed: 1 });
    expect(unifiedDiff('same\n', 'same\n')).toEqual({ text: '', added: 0, removed: 0 });
  });

  it('keeps far-apart changes in separate hunks with three lines of context', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'line two\n').replace('line 25\n', 'line twenty-five\n');
    const d = unifiedDiff(before, after);
    expect(d.text.split('\n').filter((l) => l.startsWith('@@'))).toEqual(['@@ -1,5 +1,5 @@', '@@ -22,7 +22,7 @@']);
  });

  it('turns the old text into the new one, with as few changed lines as GNU diff, on random edits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-diff-'));
    try {
      const rand = rng(42);
      for (let round = 0; round < 60; round++) {
        const words = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
        const pick = (): string => words[Math.floor(rand() * words.length)]!;
        const before = Array.from({ length: Math.floor(rand() * 25) }, pick);
        const after = before.flatMap((l) => (rand() < 0.2 ? [] : rand() < 0.2 ? [pick(), l] : [l]));
        const b = before.length === 0 ? '' : `${before.join('\n')}\n`;
        const c = after.length === 0 ? '' : `${after.join('\n')}\n`;
        const d = unifiedDiff(b, c);
        expect(applyCard(b, d.text)).toBe(c);
        expect(d.added + d.removed).toBe(gnuChanged(dir, b, c));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('still gives a true diff of two large, wholly different texts, quickly', () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `old ${i}`).join('\n') + '\n';
    const after = Array.from({ length: 20_000 }, (_, i) => `new ${i}`).join('\n') + '\n';
    const d = unifiedDiff(before, after);
    expect(applyCard(before, d.text)).toBe(after);
    expect([d.added, d.removed]).toEqual([20_000, 20_000]);
  });
});
