// The kept copy of a verified session file: used while the file's stat key holds, read and
// verified again after any rewrite, even one that keeps the size and puts the mtime back.
import { readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto/sha256.js';
import { verifiedJsonReader } from '../../src/runtime/verified-cache.js';
import { tempDir } from './scope-fixture.js';

/** A short racy margin, so a test waits a tenth of a second, not two. */
const MARGIN_MS = 50;

/** Gives `file` an mtime of a whole second, which utimes can put back exactly (a fresh file's has nanoseconds). */
function roundMtime(file: string): void {
  const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 10_000);
  utimesSync(file, t, t);
}

/** Rewrites `file` in place with `text` (of the same length), its mtime put back as it was. */
function rewriteKeepingMtime(file: string, text: string): void {
  const st = statSync(file);
  writeFileSync(file, text);
  utimesSync(file, st.atime, st.mtime);
  expect(statSync(file, { bigint: true }).mtimeNs).toBe(BigInt(st.mtimeMs) * 1_000_000n);
}

function jsonFile(dir: string, value: unknown): { file: string; digest: string } {
  const file = join(dir, 'baseline.json');
  writeFileSync(file, JSON.stringify(value));
  roundMtime(file);
  return { file, digest: sha256Hex(readFileSync(file)) };
}

describe('the kept copy of a verified session file', () => {
  it('answers from memory while the stat key holds, and refuses a same-size rewrite with the mtime put back', async () => {
    const { file, digest } = jsonFile(tempDir(), { v: 2, files: ['a'] });
    await sleep(MARGIN_MS * 3);
    const read = verifiedJsonReader(MARGIN_MS);
    const first = read(file, digest, 'the baseline');
    const second = read(file, digest, 'the baseline');
    expect(first.ok && second.ok).toBe(true);
    expect(second.ok && first.ok && second.value === first.value).toBe(true);
    rewriteKeepingMtime(file, JSON.stringify({ v: 2, files: ['b'] }));
    const third = read(file, digest, 'the baseline');
    expect(third).toMatchObject({ ok: false, tampered: true });
    // The bytes put back: verified again from the file, a fresh copy.
    rewriteKeepingMtime(file, JSON.stringify({ v: 2, files: ['a'] }));
    const fourth = read(file, digest, 'the baseline');
    expect(fourth.ok && first.ok && fourth.value !== first.value).toBe(true);
    expect(fourth.ok && fourth.value).toEqual({ v: 2, files: ['a'] });
  });

  it('keeps no copy of a file written within the racy margin', () => {
    const { file, digest } = jsonFile(tempDir(), { v: 2 });
    const read = verifiedJsonReader(60_000);
    const first = read(file, digest, 'the baseline');
    const second = read(file, digest, 'the baseline');
    expect(first.ok && second.ok && first.value !== second.value).toBe(true);
  });

  it('keeps no copy read through a symlink, whose stat key says nothing of its target', async () => {
    const dir = tempDir();
    const target = join(dir, 'real.json');
    writeFileSync(target, JSON.stringify({ v: 2, files: ['a'] }));
    roundMtime(target);
    const digest = sha256Hex(readFileSync(target));
    const file = join(dir, 'baseline.json');
    symlinkSync(target, file);
    await sleep(MARGIN_MS * 3);
    const read = verifiedJsonReader(MARGIN_MS);
    expect(read(file, digest, 'the baseline').ok).toBe(true);
    rewriteKeepingMtime(target, JSON.stringify({ v: 2, files: ['b'] }));
    expect(read(file, digest, 'the baseline')).toMatchObject({ ok: false, tampered: true });
  });
});
