// The gateway's wire shapes as the dashboard sees them: the shared ones come from protocol/
// (types only, so no schema library in the bundle), with the few checks a frame must pass.
import type { AlwaysScope } from '../core/approvals/always-scope.js';
import type { EventData } from '../protocol/events.js';
import type { ExitReason, PtyInfo } from '../protocol/pty.js';
import { EXIT_REASONS } from '../protocol/pty-states.js';

export type { AttachResult, ExitInfo as PtyExit, PtyInfo, SpawnParams } from '../protocol/pty.js';
export type { PendingApproval } from '../protocol/approvals.js';

/** `pty.output`: a chunk of terminal output, the raw bytes (a binary message) or their base64 (a JSON one). */
export type PtyOutput = Omit<EventData<'pty.output'>, 'data'> & { data: string | Uint8Array };

/** `pty.exit`: sent once, after the session's last output. */
export type PtyExitEvent = EventData<'pty.exit'>;

/** The decisions a person can give: `always` lasts this session, `always-project` every later one too. */
export type Decision = 'allow' | 'reject' | 'always' | 'always-project';

/** An always-allow rule as `approvals.rules` lists it. */
export interface ListedRule {
  id: string;
  tool: string;
  match: { exact: string } | { glob: string } | { regex: string };
  scope: AlwaysScope;
  session_id: string | null;
  created_by: string | null;
  created_at: string | null;
  origin: 'approval' | 'config';
  revocable: boolean;
}

/** The `params` of an `event` notification, before its payload is checked; `ts` is epoch milliseconds. */
export interface EventParams {
  topic: string;
  data: unknown;
  seq: number;
  ts: number;
}

/** The first problem the audit verifier found: the event's seq (null when only a checkpoint is wrong) and why. */
export interface AuditProblem {
  seq: number | null;
  reason: string;
}

/** `GET /api/audit/status`. */
export interface AuditStatus {
  ok: boolean;
  events: number;
  checkpoints: number;
  root: string;
  last_checkpoint: { tree_size: number; time: string } | null;
  first_bad: AuditProblem | null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The params of an `event` notification, or null if the frame is not one. */
export function asEventParams(v: unknown): EventParams | null {
  if (!isRecord(v) || typeof v.topic !== 'string' || typeof v.seq !== 'number') return null;
  return { topic: v.topic, data: v.data, seq: v.seq, ts: typeof v.ts === 'number' ? v.ts : 0 };
}

/** A `pty.output` payload, or null. */
export function asPtyOutput(v: unknown): PtyOutput | null {
  if (!isRecord(v) || typeof v.session_id !== 'string' || typeof v.seq !== 'number' || !(typeof v.data === 'string' || v.data instanceof Uint8Array)) return null;
  return { session_id: v.session_id, seq: v.seq, data: v.data };
}

function isExitReason(v: unknown): v is ExitReason {
  return (EXIT_REASONS as readonly unknown[]).includes(v);
}

/** A `pty.exit` payload, or null. */
export function asPtyExit(v: unknown): PtyExitEvent | null {
  if (!isRecord(v) || typeof v.session_id !== 'string') return null;
  return {
    session_id: v.session_id,
    exit_code: typeof v.exit_code === 'number' ? v.exit_code : null,
    signal: typeof v.signal === 'string' ? v.signal : null,
    reason: isExitReason(v.reason) ? v.reason : 'exited',
  };
}

/** A PtyInfo (e.g. from `pty.spawned`), or null when the required fields are missing. */
export function asPtyInfo(v: unknown): PtyInfo | null {
  if (!isRecord(v) || typeof v.id !== 'string' || typeof v.command !== 'string') return null;
  return v as unknown as PtyInfo;
}

export type { FileDiff, SessionDetail, SessionList, SessionSummary, TimelineEntry } from '../protocol/sessions.js';
