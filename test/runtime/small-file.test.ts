// Reading a file the agent can replace: a FIFO, a socket or a folder in its place never blocks
// the reader; a link is followed or refused as asked; a cap holds even for a file that grows.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readRegularFile, readSmallBytes } from '../../src/runtime/small-file.js';
import { tempDir } from '../support/cli.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('gh-small-file-');
});

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
  return undefined;
};

describe('readRegularFile', () => {
  it('reads a regular file whole, and throws ENOENT for a missing one', () => {
    writeFileSync(join(dir, 'a'), 'hello\n');
    expect(readRegularFile(join(dir, 'a'), { max: 100 }).toString()).toBe('hello\n');
    writeFileSync(join(dir, 'empty'), '');
    expect(readRegularFile(join(dir, 'empty'), { max: 100 }).length).toBe(0);
    expect(codeOf(() => readRegularFile(join(dir, 'missing'), { max: 100 }))).toBe('ENOENT');
  });

  it('throws ENOTREG at once for a FIFO nobody writes to, and for a folder', () => {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    // A blocking open would hang here until the test's timeout.
    expect(codeOf(() => readRegularFile(join(dir, 'fifo'), { max: 100 }))).toBe('ENOTREG');
    mkdirSync(join(dir, 'folder'));
    expect(codeOf(() => readRegularFile(join(dir, 'folder'), { max: 100 }))).toBe('ENOTREG');
    // Through a link too.
    symlinkSync(join(dir, 'fifo'), join(dir, 'to-fifo'));
    expect(codeOf(() => readRegularFile(join(dir, 'to-fifo'), { max: 100 }))).toBe('ENOTREG');
  });

  it('follows a link unless told not to', () => {
    writeFileSync(join(dir, 'target'), 'x');
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    expect(readRegularFile(join(dir, 'link'), { max: 100 }).toString()).toBe('x');
    expect(codeOf(() => readRegularFile(join(dir, 'link'), { max: 100, followLink: false }))).toBe('ELOOP');
  });

  it('throws EFBIG past the cap, exactly at one byte over', () => {
    writeFileSync(join(dir, 'ten'), '0123456789');
    expect(readRegularFile(join(dir, 'ten'), { max: 10 }).length).toBe(10);
    expect(codeOf(() => readRegularFile(join(dir, 'ten'), { max: 9 }))).toBe('EFBIG');
  });

  it('reads to the end of a file appended to while it is read, and still holds the cap', async () => {
    const file = join(dir, 'growing');
    writeFileSync(file, 'start\n');
    // A writer appending as fast as it can beside the reads: every read ends on what it saw, never past the cap.
    const writer = spawn(process.execPath, ['-e', `const fs=require('fs');for(;;)fs.appendFileSync(${JSON.stringify(file)}, 'line\\n')`], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < 50; i++) {
        try {
          const got = readRegularFile(file, { max: 1 << 20 }).toString();
          expect(got.startsWith('start\n')).toBe(true);
        } catch (err) {
          expect((err as NodeJS.ErrnoException).code).toBe('EFBIG');
        }
      }
    } finally {
      writer.kill('SIGKILL');
    }
    appendFileSync(file, 'x'.repeat(2 << 20));
    expect(codeOf(() => readRegularFile(file, { max: 1 << 20 }))).toBe('EFBIG');
  });
});

describe('readSmallBytes', () => {
  it('is null for a FIFO, a link, a folder and a file over the cap, and the bytes otherwise', () => {
    writeFileSync(join(dir, 'a'), 'abc');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    symlinkSync(join(dir, 'a'), join(dir, 'link'));
    mkdirSync(join(dir, 'folder'));
    expect(readSmallBytes(join(dir, 'a'), 3)?.toString()).toBe('abc');
    expect(readSmallBytes(join(dir, 'a'), 2)).toBeNull();
    expect(readSmallBytes(join(dir, 'fifo'), 100)).toBeNull();
    expect(readSmallBytes(join(dir, 'link'), 100)).toBeNull();
    expect(readSmallBytes(join(dir, 'link'), 100, { followLink: true })?.toString()).toBe('abc');
    expect(readSmallBytes(join(dir, 'folder'), 100)).toBeNull();
  });
});
