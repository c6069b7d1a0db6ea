// The files of a session folder and its append-only log: what the hook touches on every call,
// apart from SessionStore (session-store.ts), which only the CLI and the supervisor use.
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { lstatOrNull, readSmallJson } from './small-file.js';
import { isoTime } from '../core/iso-time.js';

/** File names inside a session folder. */
export const SESSION_FILES = {
  policy: 'policy.json',
  meta: 'meta.json',
  baseline: 'baseline.json',
  /** The baseline's control and watched files' texts, read only for a refusal's hint (session-files.ts). */
  baselineText: 'baseline-text.json',
  render: 'render.json',
  log: 'gate.log',
  /** A folder: git control files an agent made in a sandbox, moved here when it closes. */
  quarantine: 'quarantine',
} as const;

/** Appends one JSON line to a log file; swallows errors. One write() of a short line is atomic with O_APPEND. */
export function appendSessionLog(file: string, entry: Record<string, unknown>): void {
  try {
    // Non-blocking open: a FIFO planted in the log's place fails at once (no reader) instead of holding the hook.
    const fd = openSync(file, LOG_FLAGS, 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ at: isoTime(), ...entry })}\n`);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Logging is best effort by design.
  }
}

const LOG_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK;

/** The most of a meta.json that {@link sessionOver} reads. */
const META_MAX = 64 << 10;

/**
 * Whether the session whose folder is `dir` is over: the folder or its meta.json is gone, or the
 * meta.json says it ended. Read as the agent may have left it (small-file.ts: no link followed,
 * no FIFO waited on, nothing over 64 KB); anything unreadable says nothing (false). For what only
 * costs time when it is wrong, such as dropping a long-lived host's caches.
 */
export function sessionOver(dir: string): boolean {
  const file = join(dir, SESSION_FILES.meta);
  try {
    if (lstatOrNull(file) === null) return true;
  } catch {
    return false;
  }
  return readSmallJson(file, META_MAX)?.status === 'ended';
}
