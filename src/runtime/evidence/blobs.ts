// Content-addressed store of evidence blobs (producer outputs, scope listings, policies):
// `<state>/evidence/blobs/sha256/<hex>`, written atomically once, never rewritten.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../core/crypto/sha256.js';
import { writeFileAtomic } from '../fs-atomic.js';

/** A lowercase hex SHA-256 digest: the only names the store accepts (no path tricks). */
export const SHA256_HEX_RE = /^[0-9a-f]{64}$/;

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
