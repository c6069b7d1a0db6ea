import { describe, expect, it } from 'vitest';
import { displayText, formatTimeLeft, stripControl, textColumns, wrapColumns } from '../../src/tui/format.js';
import { listWindow } from '../../src/tui/list-window.js';
import { claudeSummary as summarizeInput } from '../support/summary.js';

describe('displayText', () => {
  it('shows escape sequences and newlines from an agent as visible marks, on one line', () => {
    expect(displayText('rm -rf\n\u001B[2Jbuild\u009B31m\t end ')).toBe('rm -rf ↵ <U+001B>[2Jbuild<U+009B>31m<TAB> end');
  });
});

describe('stripControl', () => {
  it('drops control characters from typed text but keeps its spaces', () => {
    expect(stripControl('too \u0007risky ')).toBe('too risky ');
  });
});

describe('formatTimeLeft', () => {
  it('shows the two largest units, rounding partial seconds up', () => {
    expect(formatTimeLeft(3_725_000)).toBe('1h 02m');
    expect(formatTimeLeft(272_000)).toBe('4m 32s');
    expect(formatTimeLeft(41_001)).toBe('42s');
  });

  it('says expired once no time is left', () => {
    expect(formatTimeLeft(0)).toBe('expired');
    expect(formatTimeLeft(-5000)).toBe('expired');
  });
});

describe('listWindow', () => {
  it('shows the whole list when it fits', () => {
    expect(listWindow(3, 2, 8)).toEqual({ start: 0, end: 3 });
  });

  it('keeps the selection near the middle of a long list and clamps at both ends', () => {
    expect(listWindow(50, 10, 5)).toEqual({ start: 8, end: 13 });
    expect(listWindow(50, 0, 5)).toEqual({ start: 0, end: 5 });
    expect(listWindow(50, 49, 5)).toEqual({ start: 45, end: 50 });
  });
});

describe('wrapColumns', () => {
  it('splits into lines of the width and loses no character', () => {
    expect(wrapColumns('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    const text = `npm run build && ${'x'.repeat(500)}; echo done`;
    expect(wrapColumns(text, 37).join('')).toBe(text);
    expect(wrapColumns('', 10)).toEqual(['']);
  });

  it('counts wide characters as two columns, so no line outgrows the terminal', () => {
    const lines = wrapColumns('日本語のコマンド😀 abc', 6);
    expect(lines.join('')).toBe('日本語のコマンド😀 abc');
    for (const line of lines) expect(textColumns(line)).toBeLessThanOrEqual(6);
    expect(lines[0]).toBe('日本語');
  });

  it('moves a number and its unit to the next line together, so an Edit summary never wraps mid-number', () => {
    const summary = summarizeInput('Edit', { file_path: 'src/server/a-rather-long/path/to/routes.ts', old_string: 'x'.repeat(12_345), new_string: 'y\n'.repeat(678) });
    const pairs = [...summary.matchAll(/\d+\u00a0[a-z]+/g)].map((m) => m[0]);
    // From the widest pair up: a pair wider than a line is cut like any other text.
    for (let width = 12; width <= 90; width++) {
      const lines = wrapColumns(summary, width);
      expect(lines.join('')).toBe(summary);
      for (const line of lines) expect(textColumns(line)).toBeLessThanOrEqual(width);
      const whole = lines.map((l) => l.match(/\d+\u00a0[a-z]+/g) ?? []).flat();
      expect(whole, `width ${width}: ${lines.join(' | ')}`).toEqual(pairs);
    }
  });
});
