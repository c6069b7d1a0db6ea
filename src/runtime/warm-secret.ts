// The per-session secret of the warm hook transport: made at session start, stored 0600 in
// the session folder, read by the bash hook client and checked by the supervisor.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { readSmallBytes } from './small-file.js';
import { isSafeSessionId, sessionDir } from './state-dir.js';

/** The secret's file name inside the session folder. */
const WARM_SECRET_FILE = 'warm.secret';
/** 256 bits: it lets its holder ask for verdicts in this session's name. */
const SECRET_BYTES = 32;
/** More than the file ever holds (64 hex digits and a newline): anything larger is not a secret. */
const SECRET_FILE_MAX = 256;

/** The secret file of a session. */
function warmSecretPath(projectState: string, sessionId: string): string {
  return join(sessionDir(projectState, sessionId), WARM_SECRET_FILE);
}

/** Makes and stores a fresh secret for a session; returns the file's path. */
export function createWarmSecret(projectState: string, sessionId: string): string {
  const file = warmSecretPath(projectState, sessionId);
  writeFileAtomic(file, `${randomBytes(SECRET_BYTES).toString('hex')}\n`, { mode: 0o600 });
  return file;
}

/** A session's secret, or null when it has none (a cold session, an unknown or unsafe id). */
export function readWarmSecret(projectState: string, sessionId: string): string | null {
  if (!isSafeSessionId(sessionId)) return null;
  // Read as a small regular file: a FIFO the agent put here must not block the supervisor's thread.
  const text = readSmallBytes(warmSecretPath(projectState, sessionId), SECRET_FILE_MAX)?.toString('latin1').trim();
  return text !== undefined && /^[0-9a-f]{64}$/.test(text) ? text : null;
}
