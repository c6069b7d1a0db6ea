// The project's recorded sessions as a person sees them listed: each session folder's
// meta.json, read defensively (no digest covers it), newest first.
import type { SessionSummary } from '../protocol/sessions.js';
import { SessionStore } from './session-store.js';

/** What a missing or unreadable meta.json field shows as. */
const UNKNOWN = '?';

/** A string field of `meta`, or `fallback`. */
function text(meta: Record<string, unknown>, key: string, fallback: string): string {
  const v = meta[key];
  return typeof v === 'string' ? v : fallback;
}

/** The end verdict's word as meta.json records it (its `verdict`, else its `passed`). */
function verdictOf(meta: Record<string, unknown>): string | null {
  const v = meta.end_verdict;
  if (typeof v !== 'object' || v === null) return null;
  const end = v as Record<string, unknown>;
  if (end.verdict === 'not_run') return 'not run';
  if (typeof end.verdict === 'string' && ['passed', 'failed', 'halted'].includes(end.verdict)) return end.verdict;
  return end.passed === true ? 'passed' : 'failed';
}

/**
 * One session's summary from its folder; `ptyId` is the live PTY that runs it, if any.
 * @example sessionSummary(store, null).status // 'ended'
 */
export function sessionSummary(store: SessionStore, ptyId: string | null): SessionSummary {
  const read = store.meta();
  const meta = read.ok && typeof read.value === 'object' && read.value !== null ? (read.value as unknown as Record<string, unknown>) : null;
  const problem = !read.ok ? read.reason : meta === null ? `${store.path('meta')} is not a JSON object` : null;
  const m = meta ?? {};
  return {
    id: store.id,
    agent: text(m, 'agent', UNKNOWN),
    status: text(m, 'status', UNKNOWN),
    started_at: text(m, 'started_at', ''),
    ended_at: typeof m.ended_at === 'string' ? m.ended_at : null,
    verdict: verdictOf(m),
    pty_id: ptyId,
    problem,
  };
}

/**
 * Every session of the project, newest first (by start time, then id). `ptyOf` names the live
 * PTY running a session, when there is one.
 * @example listSessions(projectState, () => null).map((s) => s.id)
 */
export function listSessions(projectState: string, ptyOf: (sessionId: string) => string | null): SessionSummary[] {
  const all = SessionStore.list(projectState).map((id) => sessionSummary(new SessionStore(projectState, id), ptyOf(id)));
  return all.sort((a, b) => (a.started_at === b.started_at ? (a.id < b.id ? 1 : -1) : a.started_at < b.started_at ? 1 : -1));
}
