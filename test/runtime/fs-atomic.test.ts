// writeFileAtomic: the whole new content or the old, never half; the file's mode kept; and a
// temp name someone else took first (a leftover, or a file or link the agent planted beside the
// target) passed over for a new one, never written through. createFileExclusive: the same, and a
// file (or link) already at the name is never replaced.
import { chmodSync, lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../src/runtime/fs-atomic.js';
import { createFileExclusive } from '../../src/runtime/fs-exclusive.js';

const dir = () => mkdtempSync(join(tmpdir(), 'gh-atomic-'));
/** The temp name both writers use when Math.random returns `r` for both halves of the token. */
const tempFor = (d: string, file: string, r: number) => {
  const half = Math.floor(r * 2 ** 32)
    .toString(16)
    .padStart(8, '0');
  return join(d, `.${file}.${process.pid}.${half}${half}.tmp`);
};

afterEach(() => vi.restoreAllMocks());

describe('writeFileAtomic', () => {
  it('replaces the content, keeps the mode, and leaves no temp file behind', () => {
    const d = dir();
    const f = join(d, 'state.json');
    writeFileSync(f, 'old');
    chmodSync(f, 0o600);
    writeFileAtomic(f, '{"new":true}');
    expect(readFileSync(f, 'utf8')).toBe('{"new":true}');
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(['state.json']);
  });

  it('gives up with EEXIST when every name it tries is taken, and the old content stays', () => {
    const d = dir();
    const f = join(d, 'state.json');
    writeFileSync(f, 'old');
    writeFileSync(tempFor(d, 'state.json', 0.5), 'planted');
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(() => writeFileAtomic(f, 'new')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(f, 'utf8')).toBe('old');
    expect(readFileSync(tempFor(d, 'state.json', 0.5), 'utf8')).toBe('planted');
  });

  it('fails with the error when the folder is missing, and creates nothing', () => {
    const d = dir();
    expect(() => writeFileAtomic(join(d, 'missing', 'state.json'), 'x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(readdirSync(d)).toEqual([]);
  });
});

describe('createFileExclusive', () => {
  it('creates the file whole, with its mode, and leaves no temp file behind', () => {
    const d = dir();
    const f = join(d, 'ev-1.json');
    createFileExclusive(f, '{"sealed":true}', { noSync: true });
    expect(readFileSync(f, 'utf8')).toBe('{"sealed":true}');
    expect(statSync(f).mode & 0o777).toBe(0o644);
    expect(readdirSync(d)).toEqual(['ev-1.json']);
  });

  it('never replaces a file or a link already at the name, and leaves no temp file behind', () => {
    const d = dir();
    const f = join(d, 'ev-1.json');
    writeFileSync(f, 'first');
    expect(() => createFileExclusive(f, 'second')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(f, 'utf8')).toBe('first');
    const outside = join(dir(), 'outside.txt');
    writeFileSync(outside, 'untouched');
    const linked = join(d, 'ev-2.json');
    symlinkSync(outside, linked);
    expect(() => createFileExclusive(linked, 'planted over')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
    expect(readdirSync(d).sort()).toEqual(['ev-1.json', 'ev-2.json']);
  });
});

// Both writers take their temp file from createTemp. An agent that read earlier names of the same
// process could plant the next one (Math.random is not secret): a link to a file outside.
describe.each([
  ['writeFileAtomic', writeFileAtomic],
  ['createFileExclusive', createFileExclusive],
])('%s', (_, write) => {
  it('passes over a temp name that is taken, and writes neither through the planted link nor onto it', () => {
    const d = dir();
    const outside = join(dir(), 'outside.txt');
    writeFileSync(outside, 'untouched');
    const planted = tempFor(d, 'state.json', 0.5);
    symlinkSync(outside, planted);
    // The first token names the planted link; the next is new.
    const values = [0.5, 0.5, 0.25, 0.75];
    vi.spyOn(Math, 'random').mockImplementation(() => values.shift() ?? 0.125);
    write(join(d, 'state.json'), 'mine');
    expect(readFileSync(join(d, 'state.json'), 'utf8')).toBe('mine');
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
    expect(lstatSync(planted).isSymbolicLink() && readlinkSync(planted)).toBe(outside);
  });
});
