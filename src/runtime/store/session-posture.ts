// A session's posture as the approval relay reads it from the compiled policy: it decides
// whether the session's requests are denied early when the team store stays unreachable.
import { join } from 'node:path';
import { isSafeSessionId, sessionDir } from '../state-dir.js';
import { readSmallJson } from '../small-file.js';

/** Largest policy.json read for a session's posture (a policy with many rules stays far below). */
const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * The posture of a session as its compiled policy says: fail-closed when chosen or when the
 * session is sandboxed (as for every infrastructure failure), else fail-open. A session whose
 * policy cannot be read is taken as the config default, fail-open: its requests still wait for
 * an answer or expire, they are only not denied early.
 */
export function postureOf(projectState: string, sessionId: string): 'fail-open' | 'fail-closed' {
  if (!isSafeSessionId(sessionId)) return 'fail-open';
  const policy = readSmallJson(join(sessionDir(projectState, sessionId), 'policy.json'), MAX_POLICY_BYTES);
  return policy !== null && (policy['posture'] === 'fail-closed' || policy['sandboxed'] === true) ? 'fail-closed' : 'fail-open';
}
