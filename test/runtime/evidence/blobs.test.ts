import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getBlob, readBlob } from '../../../src/runtime/evidence/blob-read.js';
import { blobDir, putBlob } from '../../../src/runtime/evidence/blobs.js';

let state: string;

beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'gatehouse-blobs-'));
});

afterEach(() => {
  rmSync(state, { recursive: true, force: true });
});

describe('blob store', () => {
  it('stores bytes under their sha256 in evidence/blobs/sha256/', () => {
    const data = Buffer.from('test output\n');
    const digest = putBlob(state, data);
    expect(digest).toBe(createHash('sha256').update(data).digest('hex'));
    expect(readFileSync(join(state, 'evidence', 'blobs', 'sha256', digest))).toEqual(data);
    expect(getBlob(state, digest)).toEqual(data);
  });

  it('leaves a blob that is already present untouched and leaves no temp files', () => {
    const digest = putBlob(state, Buffer.from('same'));
    const before = statSync(join(blobDir(state), digest)).mtimeMs;
    expect(putBlob(state, Buffer.from('same'))).toBe(digest);
    expect(statSync(join(blobDir(state), digest)).mtimeMs).toBe(before);
    expect(readdirSync(blobDir(state))).toEqual([digest]);
  });

  it('stores the empty blob', () => {
    const digest = putBlob(state, Buffer.alloc(0));
    expect(getBlob(state, digest)).toEqual(Buffer.alloc(0));
  });

  it('returns null for an absent blob and for a name that is not a digest', () => {
    expect(getBlob(state, '0'.repeat(64))).toBeNull();
    expect(getBlob(state, '../../keys/ed25519.key.pem')).toBeNull();
    expect(getBlob(state, 'A'.repeat(64))).toBeNull();
  });

  it('refuses a blob planted as a symbolic link instead of reading the file it points to', () => {
    const digest = putBlob(state, Buffer.from('real'));
    const target = join(state, 'secret');
    writeFileSync(target, 'real');
    rmSync(join(blobDir(state), digest));
    symlinkSync(target, join(blobDir(state), digest));
    expect(getBlob(state, digest)).toBeNull();
    const r = readBlob(state, digest);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/^is a symbolic link, not a stored blob/);
  });
});
