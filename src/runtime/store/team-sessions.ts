// Every machine's sessions as the team dashboard lists them, read from the session registry.
import type { Pool } from 'pg';

/** One session of any machine, as `GET /api/team/sessions` sends it. */
export interface TeamSession {
  machine_id: string;
  host: string;
  user: string;
  project_key: string;
  session_id: string;
  agent: string;
  worktree: string;
  status: string;
  started_at: string | null;
  ended_at: string | null;
  verdict: string | null;
  verdict_summary: string | null;
  evidence_id: string | null;
  sandboxed: boolean;
  /** When the row last changed in the store (ISO 8601). */
  updated_at: string;
}

/** At most this many sessions are listed (newest first): a dashboard, not an archive. */
const TEAM_SESSIONS_LIMIT = 500;

interface Row {
  machine_id: string;
  host: string;
  os_user: string;
  project_key: string;
  session_id: string;
  agent: string;
  worktree: string;
  status: string;
  started_at: Date | null;
  ended_at: Date | null;
  verdict: string | null;
  verdict_summary: string | null;
  evidence_id: string | null;
  sandboxed: boolean;
  updated_at: Date;
}

/**
 * The newest sessions of every machine, and how many more the registry holds.
 * @example const { sessions } = await listTeamSessions(store.pool)
 */
export async function listTeamSessions(pool: Pool, limit = TEAM_SESSIONS_LIMIT): Promise<{ sessions: TeamSession[]; omitted: number }> {
  const [rows, count] = await Promise.all([
    pool.query<Row>('SELECT * FROM gh_sessions ORDER BY started_at DESC NULLS LAST, machine_id, session_id LIMIT $1', [limit]),
    pool.query<{ n: string }>('SELECT count(*) AS n FROM gh_sessions'),
  ]);
  const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
  const sessions = rows.rows.map((r) => ({
    machine_id: r.machine_id,
    host: r.host,
    user: r.os_user,
    project_key: r.project_key,
    session_id: r.session_id,
    agent: r.agent,
    worktree: r.worktree,
    status: r.status,
    started_at: iso(r.started_at),
    ended_at: iso(r.ended_at),
    verdict: r.verdict,
    verdict_summary: r.verdict_summary,
    evidence_id: r.evidence_id,
    sandboxed: r.sandboxed,
    updated_at: r.updated_at.toISOString(),
  }));
  return { sessions, omitted: Math.max(0, Number(count.rows[0]?.n ?? 0) - sessions.length) };
}
