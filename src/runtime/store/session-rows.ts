// A local session folder as the team's session registry records it: meta.json for the status
// and the verdict, policy.json for whether it ran sandboxed. Read defensively: no digest covers meta.json.
import { SessionStore } from '../session-store.js';
import type { Machine } from './machine.js';
import { isoTime } from '../../core/iso-time.js';

/** One row of `gh_sessions`, before the store adds `updated_at`. */
export interface SessionRow {
  machine_id: string;
  host: string;
  os_user: string;
  project_key: string;
  session_id: string;
  agent: string;
  worktree: string;
  status: string;
  started_at: string | null;
  ended_at: string | null;
  /** `passed`, `failed`, `halted` or `not_run`; null before the end-of-session check ran. */
  verdict: string | null;
  verdict_summary: string | null;
  evidence_id: string | null;
  sandboxed: boolean;
}

/** A text field keeps at most this many characters: meta.json is agent-writable without a sandbox, and a row is a listing, not an archive. */
const MAX_TEXT = 2_000;

/**
 * A text PostgreSQL takes: at most {@link MAX_TEXT} characters, and a NUL (which a text column refuses,
 * failing the whole row) shown as U+FFFD, so a planted NUL cannot keep a session out of the registry.
 */
const clean = (v: string): string => v.slice(0, MAX_TEXT).replaceAll('\0', '\uFFFD');
const text = (v: unknown, fallback: string): string => (typeof v === 'string' ? clean(v) : fallback);
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? clean(v) : null);

/** An ISO time the database can take, or null: a time it cannot parse must not stop the rest of the registry. */
function timeOrNull(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? isoTime(ms) : null;
}

/** The end verdict as a word (the one `run --json` prints). */
function verdictWord(end: Record<string, unknown>): string {
  if (typeof end.verdict === 'string' && ['passed', 'failed', 'halted', 'not_run'].includes(end.verdict)) return end.verdict;
  return end.passed === true ? 'passed' : 'failed';
}

/**
 * The registry row of session `id` in `projectState`, or null when its meta.json cannot be read
 * (a folder being created, or not a session).
 * @example sessionRow(state, 'abc', thisMachine(), projectKey(worktree))?.verdict // 'passed'
 */
function sessionRow(projectState: string, id: string, machine: Machine, projectKey: string): SessionRow | null {
  const store = new SessionStore(projectState, id);
  const read = store.meta();
  if (!read.ok || typeof read.value !== 'object' || read.value === null) return null;
  const m = read.value as unknown as Record<string, unknown>;
  const policy = store.readJson<Record<string, unknown>>('policy');
  const end = typeof m.end_verdict === 'object' && m.end_verdict !== null ? (m.end_verdict as Record<string, unknown>) : null;
  return {
    machine_id: machine.id,
    host: machine.host,
    os_user: machine.user,
    project_key: projectKey,
    session_id: id,
    agent: text(m.agent, '?'),
    worktree: text(m.worktree, ''),
    status: text(m.status, '?'),
    started_at: timeOrNull(m.started_at),
    ended_at: timeOrNull(m.ended_at),
    verdict: end === null ? null : verdictWord(end),
    verdict_summary: end === null ? null : textOrNull(end.summary),
    evidence_id: end === null ? null : textOrNull(end.evidence_id),
    sandboxed: policy.ok && typeof policy.value === 'object' && policy.value !== null && policy.value.sandboxed === true,
  };
}

/** Every session row of a project, oldest id first. */
export function sessionRows(projectState: string, machine: Machine, projectKey: string): SessionRow[] {
  return SessionStore.list(projectState).flatMap((id) => sessionRow(projectState, id, machine, projectKey) ?? []);
}
