// The gateway's wire shapes as the dashboard sees them (JSON-RPC results and event
// payloads), with the few checks a frame must pass before the page acts on it.
import type { AlwaysScope, AlwaysTarget } from '../core/approvals/always-scope.js';

/** How a PTY process ended. */
export interface PtyExit {
  exit_code: number | null;
  signal: number | string | null;
  /** Why it ended, e.g. `exited`, `closed`, `evicted`, `idle`. */
  reason: string;
  /** The end-of-session verdict of a gated agent session, when there was one. */
  verdict?: string;
}

/** One PTY session as `pty.list` and `pty.spawn` report it. */
export interface PtyInfo {
  id: string;
  command: string;
  args: string[];
  cwd: string;
  pid: number;
  rows: number;
  cols: number;
  /** ISO 8601 (or epoch ms). */
  created_at: string | number;
  state: string;
  exit: PtyExit | null;
  label?: string;
  /** The gated session's agent, when the PTY was spawned with `session`. */
  agent?: string;
}

/** What `pty.attach` returns: the server-held screen and the output seq it includes. */
export interface AttachResult {
  scrollback: string;
  seq: number;
  /** The oldest scrollback lines were left out to fit one frame. */
  truncated?: boolean;
}

/** A pending approval as `approvals.list` reports it. */
export interface PendingApproval {
  id: string;
  nonce: string;
  session_id: string;
  agent: string;
  tool: string;
  summary: string;
  created_at: string;
  expires_at: string;
  /** What "always" would add a rule for: null, no rule; absent, filed by an older Gatehouse. */
  always?: AlwaysTarget | null;
}

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

/** The `params` of an `event` notification. */
export interface EventParams {
  topic: string;
  data: unknown;
  seq: number;
  ts: string | number;
}

/** `pty.output`: a chunk of terminal output, base64 of the raw bytes. */
export interface PtyOutput {
  session_id: string;
  seq: number;
  data: string;
}

/** `pty.exit`: sent once, after the session's last output. */
export interface PtyExitEvent {
  session_id: string;
  exit_code: number | null;
  signal: number | string | null;
  reason: string;
  verdict?: string;
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

/** What `new session` sends as `pty.spawn`'s params. */
export interface SpawnParams {
  command?: string;
  args?: string[];
  cwd?: string;
  rows?: number;
  cols?: number;
  session?: { agent: string; allow: string[]; require: string[]; sandbox?: { network: 'host' | 'none' } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The params of an `event` notification, or null if the frame is not one. */
export function asEventParams(v: unknown): EventParams | null {
  if (!isRecord(v) || typeof v.topic !== 'string' || typeof v.seq !== 'number') return null;
  return { topic: v.topic, data: v.data, seq: v.seq, ts: typeof v.ts === 'number' || typeof v.ts === 'string' ? v.ts : 0 };
}

/** A `pty.output` payload, or null. */
export function asPtyOutput(v: unknown): PtyOutput | null {
  if (!isRecord(v) || typeof v.session_id !== 'string' || typeof v.seq !== 'number' || typeof v.data !== 'string') return null;
  return { session_id: v.session_id, seq: v.seq, data: v.data };
}

/** A `pty.exit` payload, or null. */
export function asPtyExit(v: unknown): PtyExitEvent | null {
  if (!isRecord(v) || typeof v.session_id !== 'string') return null;
  const code = typeof v.exit_code === 'number' ? v.exit_code : null;
  const signal = typeof v.signal === 'number' || typeof v.signal === 'string' ? v.signal : null;
  const out: PtyExitEvent = { session_id: v.session_id, exit_code: code, signal, reason: typeof v.reason === 'string' ? v.reason : 'exited' };
  if (typeof v.verdict === 'string') out.verdict = v.verdict;
  return out;
}

/** A PtyInfo (e.g. from `pty.spawned`), or null when the required fields are missing. */
export function asPtyInfo(v: unknown): PtyInfo | null {
  if (!isRecord(v) || typeof v.id !== 'string' || typeof v.command !== 'string') return null;
  return v as unknown as PtyInfo;
}
