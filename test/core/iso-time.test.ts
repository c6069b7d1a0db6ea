import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/core/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, across the years it formats with four digits and at their edges', () => {
    const edges = [
      0,
      1,
      -1,
      999,
      1000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(0, 0, 1) - 86_400_000 * 365 * 1900,
      -62_167_219_200_000,
      -62_167_219_200_001,
    ];
    let seed = 42;
    const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const random = Array.from({ length: 5000 }, () => Math.floor((next() * 2 - 1) * 8.64e15));
    for (const ms of [...edges, ...random]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
    }
  });

  it('throws for an invalid date, as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(new Date('not a date'))).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });

  it('defaults to now', () => {
    const before = Date.now();
    const at = Date.parse(isoTime());
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});
