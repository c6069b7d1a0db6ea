import { execFileSync } from 'node:child_process';
import { appendFileSync, openSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HASH_MAX_BYTES } from '../../src/runtime/scope-hash.js';
import { ScopeBudgetError } from '../../src/runtime/scope-baseline.js';
import { changedSince, changes, recordBaseline, repo, write } from './scope-fixture.js';

const ALLOW = ['src/**'];

/**
 * Far above what the check may cost on these tiny trees, far below what reading even
 * one gibibyte would take: a check that read a sparse terabyte would blow through it.
 */
const CHEAP_MS = 5_000;

function sparse(path: string, size: string): void {
  execFileSync('truncate', ['-s', size, path]);
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const value = await fn();
  return [value, Date.now() - start];
}

describe('the check stays inside its budget', () => {
  it('costs nothing for a sparse 1 TiB file inside the allowlist, before or after it changes', async () => {
    const root = repo();
    write(root, 'src/x', '');
    sparse(join(root, 'src/huge.bin'), '1T');
    const [b, recordMs] = await timed(() => recordBaseline(root, { allow: ALLOW }));
    const [none, checkMs] = await timed(() => changes(root, b, { allow: ALLOW }));
    expect(none).toEqual([]);
    appendFileSync(join(root, 'src/huge.bin'), 'x');
    sparse(join(root, 'src/new-huge.bin'), '1T');
    const [found, againMs] = await timed(() => changes(root, b, { allow: ALLOW }));
    expect(found).toEqual(['modified src/huge.bin rewrite', 'created src/new-huge.bin delete']);
    expect(Math.max(recordMs, checkMs, againMs)).toBeLessThan(CHEAP_MS);
  });

  it('costs at most the hash cap for a sparse 1 TiB file outside it, and still sees it change', async () => {
    const root = repo();
    sparse(join(root, 'data.bin'), '1T');
    const [b, recordMs] = await timed(() => recordBaseline(root, { allow: ALLOW }));
    expect(b.files.find((r) => r[0] === 'data.bin')?.[2]).toBeNull();
    const fd = openSync(join(root, 'data.bin'), 'r+');
    writeSync(fd, 'x', 12345);
    closeSync(fd);
    sparse(join(root, 'planted.bin'), '1T');
    const [found, checkMs] = await timed(() => changes(root, b, { allow: ALLOW }));
    expect(found).toEqual(['modified data.bin rewrite', 'created planted.bin delete']);
    expect(Math.max(recordMs, checkMs)).toBeLessThan(CHEAP_MS);
  });

  it('throws ScopeBudgetError past the deadline, also in the middle of hashing a large file', async () => {
    const root = repo();
    write(root, 'big.bin', 'a'.repeat(HASH_MAX_BYTES - 1));
    const b = await recordBaseline(root, { allow: ALLOW });
    await expect(changedSince(root, b, { deadline: Date.now() - 1 })).rejects.toBeInstanceOf(ScopeBudgetError);
    write(root, 'big.bin', 'b'.repeat(HASH_MAX_BYTES - 1));
    await expect(changedSince(root, b, { deadline: Date.now() + 5 })).rejects.toThrow(/ran past its time budget/);
    // The end-of-session check has no deadline and runs to completion.
    expect((await changedSince(root, b)).map((c) => c.path)).toEqual(['big.bin']);
  });
});
