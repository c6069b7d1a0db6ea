// Every machine's sessions as the team dashboard lists them, read from the session registry.
import type { Pool } from 'pg';
import type { SessionRow } from './session-rows.js';
import { isoTime } from '../../core/iso-time.js';

/** One session of any machine, as `GET /api/team/sessions` sends it: the registry's row, its user named `user`. */
export type TeamSession = Omit<SessionRow, 'os_user'> & {
  user: string;
  /** When the row last changed in the store (ISO 8601). */
  updated_at: string;
};

/** At most this many sessions are listed (newest first): a dashboard, not an archive. */
const TEAM_SESSIONS_LIMIT = 500;

/** A row as the driver returns it: times as Date. */
type Row = Omit<SessionRow, 'started_at' | 'ended_at'> & { started_at: Date | null; ended_at: Date | null; updated_at: Date };

/**
 * The newest sessions of every machine, and how many more the registry holds.
 * @example const { sessions } = await listTeamSessions(store.pool)
 */
export async function listTeamSessions(pool: Pool, limit = TEAM_SESSIONS_LIMIT): Promise<{ sessions: TeamSession[]; omitted: number }> {
  const [rows, count] = await Promise.all([
    pool.query<Row>('SELECT * FROM gh_sessions ORDER BY started_at DESC NULLS LAST, machine_id, session_id LIMIT $1', [limit]),
    pool.query<{ n: string }>('SELECT count(*) AS n FROM gh_sessions'),
  ]);
  const iso = (d: Date | null): string | null => (d === null ? null : isoTime(d));
  const sessions = rows.rows.map(({ os_user, started_at, ended_at, updated_at, ...rest }): TeamSession => ({
    ...rest,
    user: os_user,
    started_at: iso(started_at),
    ended_at: iso(ended_at),
    updated_at: isoTime(updated_at),
  }));
  return { sessions, omitted: Math.max(0, Number(count.rows[0]?.n ?? 0) - sessions.length) };
}
