import { describe, expect, it } from 'vitest';
import { clipWords, wrapWords } from '../../src/core/word-wrap.js';

describe('wrapWords', () => {
  it('breaks only at spaces and keeps every word whole', () => {
    const text = "Gatehouse refused this Write: package.json is outside this task's allowed paths (src/**).";
    const lines = wrapWords(text, 30);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
    expect(lines.join(' ')).toBe(text);
    expect(lines).toEqual(['Gatehouse refused this Write:', 'package.json is outside this', "task's allowed paths (src/**)."]);
  });

  it('splits a word longer than a line, and only such a word', () => {
    expect(wrapWords('see 0123456789abcdef now', 8)).toEqual(['see', '01234567', '89abcdef', 'now']);
  });

  it('returns one empty line for empty text', () => {
    expect(wrapWords('', 10)).toEqual(['']);
  });
});

describe('clipWords', () => {
  it('keeps short text whole', () => {
    expect(clipWords('one two', 20, 2)).toEqual({ lines: ['one two'], clipped: false });
  });

  it('ends the last kept line with an ellipsis after a whole word', () => {
    const { lines, clipped } = clipWords('alpha beta gamma delta epsilon zeta eta theta', 12, 2);
    expect(clipped).toBe(true);
    expect(lines).toEqual(['alpha beta', 'gamma …']);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(12);
  });
});
