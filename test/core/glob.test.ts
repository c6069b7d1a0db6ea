import { describe, expect, it } from 'vitest';
import { compileGlob, matchesAny } from '../../src/core/glob.js';

const m = (pattern: string, path: string): boolean => compileGlob(pattern).re.test(path);

describe('compileGlob', () => {
  it('lets ** cross folders and * stay within one', () => {
    expect(m('src/**', 'src/a.ts')).toBe(true);
    expect(m('src/**', 'src/a/b/c.ts')).toBe(true);
    expect(m('src/*', 'src/a.ts')).toBe(true);
    expect(m('src/*', 'src/a/b.ts')).toBe(false);
    expect(m('src/*.ts', 'src/a.js')).toBe(false);
  });

  it('treats a trailing slash as the whole folder', () => {
    expect(m('docs/', 'docs/x.md')).toBe(true);
    expect(m('docs/', 'docs/deep/x.md')).toBe(true);
    expect(m('docs/', 'docsx/a.md')).toBe(false);
    expect(m('docs/', 'other/docs/a.md')).toBe(false);
  });

  it('matches **/ as zero or more folders', () => {
    expect(m('**/*.md', 'README.md')).toBe(true);
    expect(m('**/*.md', 'a/b/README.md')).toBe(true);
    expect(m('src/**/test/*.ts', 'src/test/a.ts')).toBe(true);
    expect(m('src/**/test/*.ts', 'src/x/y/test/a.ts')).toBe(true);
    expect(m('src/**/test/*.ts', 'src/x/ytest/a.ts')).toBe(false);
  });

  it('does not read regex characters in a literal name as a pattern', () => {
    expect(m('a.b', 'axb')).toBe(false);
    expect(m('a+(b).txt', 'a+(b).txt')).toBe(true);
    expect(m('$x^', '$x^')).toBe(true);
  });

  it('supports ?, classes and braces', () => {
    expect(m('a?.ts', 'ab.ts')).toBe(true);
    expect(m('a?.ts', 'a/.ts')).toBe(false);
    expect(m('[ab].ts', 'b.ts')).toBe(true);
    expect(m('[!ab].ts', 'c.ts')).toBe(true);
    expect(m('[!ab].ts', 'a.ts')).toBe(false);
    expect(m('src/*.{ts,tsx}', 'src/a.tsx')).toBe(true);
    expect(m('src/*.{ts,tsx}', 'src/a.js')).toBe(false);
  });

  it('matches unicode names and spaces literally', () => {
    expect(m('notes/ünï cødé/*.md', 'notes/ünï cødé/日本.md')).toBe(true);
    expect(m('my dir/', 'my dir/file name.txt')).toBe(true);
  });

  it('strips a leading ./ and keeps unbalanced braces literal', () => {
    expect(m('./src/**', 'src/a.ts')).toBe(true);
    expect(m('a{b', 'a{b')).toBe(true);
  });

  it('matchesAny checks every pattern', () => {
    const globs = ['src/**', 'README.md'].map(compileGlob);
    expect(matchesAny('README.md', globs)).toBe(true);
    expect(matchesAny('package.json', globs)).toBe(false);
  });
});
