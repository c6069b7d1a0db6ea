// Session ids and where a session's folder is inside a project state folder: what the hook needs
// on every call (the state folders themselves are placed by state-base.ts).
import { join } from 'node:path';

/** Session ids are baked into shell commands and folder names: keep them boring. */
const SESSION_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** True if `id` is safe to use as a session id (and as a folder name). */
export function isSafeSessionId(id: string): boolean {
  return SESSION_ID_RE.test(id) && !id.includes('..');
}

/** The folder of one session inside a project state dir. */
export function sessionDir(projectState: string, id: string): string {
  return join(projectState, 'sessions', id);
}
