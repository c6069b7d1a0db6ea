// Reading evidence blobs back, never through a link: kept apart from blobs.ts, which sealing
// (and so every hook) loads, because only export, verify and tests read blobs.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { blobDir, SHA256_HEX_RE } from './blobs.js';

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
