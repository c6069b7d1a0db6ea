// A session's gate decisions as the project's audit log holds them (outside the session folder,
// hash-chained and signed), with whether that log still verifies against the keys beside it.
import { join } from 'node:path';
import type { AuditEvent, AuditEventType } from './audit/index.js';
import { verifyAudit } from './audit/verify.js';
import { knownPublicKeys } from './key-history.js';
import { auditLogFor } from './recorder.js';

/** The events that record a decision about the agent's work: a tool call, a stop, an approval, tampering. */
const DECISION_EVENT_TYPES: readonly AuditEventType[] = ['gate_decision', 'completion_verdict', 'human_approval_decision', 'tamper_detected'];

/** What {@link sessionDecisions} found. */
export interface SessionDecisions {
  /** The newest decisions, oldest first. */
  events: AuditEvent[];
  /** How many decisions the log holds for the session in all. */
  total: number;
  /** The session's last end-of-session `completion_verdict`: the signed record of its verdict. */
  endVerdict: AuditEvent | null;
  /** Whether the whole log verifies (hash chain, Merkle root, checkpoints) with the project's keys; if not, why. */
  audit: { verified: boolean; problem: string | null };
}

/**
 * The last `limit` decision events of `sessionId`, and whether the log they come from is intact.
 * Reads the whole log twice (scan and verify): a CLI-time cost, never on a hook's path.
 * @example sessionDecisions(projectState, '20261201-035028-53008ef1', 10).events.at(-1)?.type
 */
export function sessionDecisions(projectState: string, sessionId: string, limit: number): SessionDecisions {
  const all: AuditEvent[] = [];
  let unreadable: string | null = null;
  try {
    for (const e of auditLogFor(projectState).events()) {
      if (e.session_id === sessionId && (DECISION_EVENT_TYPES as readonly string[]).includes(e.type)) all.push(e);
    }
  } catch (err) {
    // A line that is not JSON: the log was edited. The decisions before it are still shown, flagged.
    unreadable = `the audit log holds a line that is not JSON (${(err as Error).message})`;
  }
  const report = verifyAudit(join(projectState, 'audit'), [...knownPublicKeys(projectState).values()]);
  const problem = report.ok && unreadable === null ? null : (report.first_bad?.reason ?? report.problems[0] ?? unreadable ?? 'unknown problem');
  const endVerdict = [...all].reverse().find((e) => e.type === 'completion_verdict' && (e.data as { where?: unknown }).where === 'end_of_session') ?? null;
  return { events: limit > 0 ? all.slice(-limit) : [], total: all.length, endVerdict, audit: { verified: report.ok, problem } };
}
