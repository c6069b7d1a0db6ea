// Content-addressed store of evidence blobs (producer outputs, scope listings, policies):
// `<state>/evidence/blobs/sha256/<hex>`, written atomically once, never rewritten.
import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { writeFileAtomic } from '../fs-atomic.js';

/** A lowercase hex SHA-256 digest: the only names the store accepts (no path tricks). */
export const SHA256_HEX_RE = /^[0-9a-f]{64}$/;

/** Hex SHA-256 of some bytes. */
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The folder holding every blob of a project. */
export function blobDir(projectState: string): string {
  return join(projectState, 'evidence', 'blobs', 'sha256');
}

/**
 * Stores `data` under its SHA-256 and returns the hex digest; a blob already present is left alone.
 * @example const digest = putBlob(state, Buffer.from(result.output, 'utf8'))
 */
export function putBlob(projectState: string, data: Buffer): string {
  const digest = sha256Hex(data);
  const dir = blobDir(projectState);
  const file = join(dir, digest);
  if (existsSync(file)) return digest;
  mkdirSync(dir, { recursive: true });
  // No fsync: like the audit log, evidence guards against tampering, not power loss.
  writeFileAtomic(file, data, { noSync: true });
  return digest;
}

/**
 * The bytes of the file stored under `digest`, read without following a link: the store sits in a
 * folder the agent can write, so a planted link (to a key, a FIFO, a device) is refused, never read.
 * The bytes are not hashed here; every caller compares them with `digest`. A failure's reason
 * completes "blob <digest> …" ("is missing", "is a symbolic link, not a stored blob").
 * @example const r = readBlob(state, subject.digest.sha256); if (r.ok && sha256Hex(r.value) === subject.digest.sha256) use(r.value)
 */
export function readBlob(projectState: string, digest: string): Result<Buffer> {
  if (!SHA256_HEX_RE.test(digest)) return fail('is missing (the name is not a lowercase hex SHA-256)');
  const file = join(blobDir(projectState), digest);
  let fd: number;
  try {
    // O_NONBLOCK: opening a planted FIFO must not wait for a writer.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return fail('is missing');
    if (code === 'ELOOP') return fail(`is a symbolic link, not a stored blob (${file})`);
    if (code === 'EACCES' || code === 'EPERM') return fail(`cannot be read (${code}): ${file}`);
    throw err;
  }
  try {
    if (!fstatSync(fd).isFile()) return fail(`is not a regular file (${file})`);
    return ok(readFileSync(fd));
  } finally {
    closeSync(fd);
  }
}

/**
 * The blob stored under `digest`, or null when it is absent, is not a regular file, or the name is not a digest.
 * @example const out = getBlob(state, subject.digest.sha256)
 */
export function getBlob(projectState: string, digest: string): Buffer | null {
  const r = readBlob(projectState, digest);
  return r.ok ? r.value : null;
}
