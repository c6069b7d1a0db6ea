// What a session's start recorded about its own files (in the audit log, outside the session
// folder): the digests that `session check` and `session end` trust them by afterwards.
import type { AuditEventDataMap } from './audit/events.js';
import { auditLogFor } from './recorder.js';

/** SHA-256 of the session files as `session start` wrote them. */
export interface StartDigests {
  /** The agent the session was started for (whose adapter removes its hooks). */
  agent: string;
  /** The worktree the session was started for (whose agent settings files it rendered). */
  worktree: string;
  policy: string;
  baseline: string | null;
  render: string | null;
}

/**
 * The digests of the first `session_started` for `sessionId`, or null when the log holds none (a
 * session started by an older Gatehouse, or a log cut short). A start is recorded once, so a later
 * record for the same id (one appended around Gatehouse) never replaces it. Reads the log up to
 * that record: a CLI-time cost.
 */
export function startDigests(projectState: string, sessionId: string): StartDigests | null {
  for (const e of auditLogFor(projectState).events()) {
    if (e.type !== 'session_started' || e.session_id !== sessionId) continue;
    const d = e.data as AuditEventDataMap['session_started'];
    if (typeof d.policy_sha256 === 'string') return { agent: d.agent, worktree: d.worktree, policy: d.policy_sha256, baseline: d.baseline_sha256 ?? null, render: d.render_sha256 ?? null };
  }
  return null;
}
