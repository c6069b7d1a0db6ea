// The files of a session folder and its append-only log: what the hook touches on every call,
// apart from SessionStore (session-store.ts), which only the CLI and the supervisor use.
import { appendFileSync } from 'node:fs';

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
