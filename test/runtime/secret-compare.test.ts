// Secrets compared by digest: equal strings match, anything else (shorter, longer,
// one character off) does not.
import { describe, expect, it } from 'vitest';
import { digestMatches, sameDigest, sameSecret, secretDigest } from '../../src/runtime/secret-compare.js';

const SECRET = 'a'.repeat(64);

describe('sameSecret', () => {
  it('matches the same secret', () => {
    expect(sameSecret(SECRET, SECRET)).toBe(true);
  });

  it('refuses a secret of the wrong length', () => {
    expect(sameSecret(SECRET.slice(1), SECRET)).toBe(false);
    expect(sameSecret(`${SECRET}a`, SECRET)).toBe(false);
    expect(sameSecret('', SECRET)).toBe(false);
  });

  it('refuses a secret of the right length with one character changed', () => {
    expect(sameSecret(`${SECRET.slice(1)}b`, SECRET)).toBe(false);
  });
});

describe('digestMatches', () => {
  it('matches a secret against its stored digest only', () => {
    const stored = secretDigest(SECRET);
    expect(digestMatches(SECRET, stored)).toBe(true);
    expect(digestMatches(SECRET.toUpperCase(), stored)).toBe(false);
  });

  it('refuses a stored digest of another length instead of throwing', () => {
    expect(digestMatches(SECRET, Buffer.alloc(16))).toBe(false);
    expect(sameDigest(Buffer.alloc(32), Buffer.alloc(31))).toBe(false);
  });
});
