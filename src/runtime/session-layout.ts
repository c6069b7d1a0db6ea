// The files of a session folder and its append-only log: what the hook touches on every call,
// apart from SessionStore (session-store.ts), which only the CLI and the supervisor use.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** File names inside a session folder. */
export const SESSION_FILES = {
  policy: 'policy.json',
  meta: 'meta.json',
  baseline: 'baseline.json',
  render: 'render.json',
  log: 'gate.log',
  /** A folder: git control files an agent made in a sandbox, moved here when it closes. */
  quarantine: 'quarantine',
} as const;

/** Appends one JSON line to a log file; swallows errors. One write() of a short line is atomic with O_APPEND. */
export function appendSessionLog(file: string, entry: Record<string, unknown>): void {
  try {
    appendFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`, { mode: 0o600 });
  } catch {
    // Logging is best effort by design.
  }
}

/**
 * Whether the session whose folder is `dir` is over: the folder is gone, or its meta.json says
 * it ended. A meta.json that cannot be read or parsed any other way says nothing either way (false).
 * For what only costs time when wrong (dropping a long-lived host's caches): the agent can write the file.
 */
export function sessionOver(dir: string): boolean {
  let text: string;
  try {
    text = readFileSync(join(dir, SESSION_FILES.meta), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
  try {
    const meta: unknown = JSON.parse(text);
    return typeof meta === 'object' && meta !== null && (meta as { status?: unknown }).status === 'ended';
  } catch {
    return false;
  }
}
