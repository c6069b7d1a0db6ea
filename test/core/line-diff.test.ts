import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedHunks } from '../../src/core/line-diff.js';

// The dashboard's unified diff: the hunks it prints rebuild the new text from the old one.

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
