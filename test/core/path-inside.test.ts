// Path containment by string: a sibling with a shared prefix is not inside, the root itself is.
import { describe, expect, it } from 'vitest';
import { isInside, relativeInside } from '../../src/core/path-inside.js';

describe('isInside', () => {
  it('counts the root itself and paths below it', () => {
    expect(isInside('/repo', '/repo')).toBe(true);
    expect(isInside('/repo', '/repo/src/a.ts')).toBe(true);
    expect(isInside('/', '/etc/passwd')).toBe(true);
    expect(isInside('/repo/', '/repo/a')).toBe(true);
  });

  it('refuses a sibling that only shares a name prefix, and the parent', () => {
    expect(isInside('/repo', '/repo2/a')).toBe(false);
    expect(isInside('/repo', '/repo-other')).toBe(false);
    expect(isInside('/repo/src', '/repo')).toBe(false);
  });
});

describe('relativeInside', () => {
  it('gives the path below the root, empty for the root itself', () => {
    expect(relativeInside('/repo', '/repo/src/a.ts')).toBe('src/a.ts');
    expect(relativeInside('/repo/', '/repo/src/a.ts')).toBe('src/a.ts');
    expect(relativeInside('/repo', '/repo')).toBe('');
    expect(relativeInside('/', '/etc')).toBe('etc');
  });
});
