// One page of team log rows, checked on its own (in a worker thread): every line as the file
// verify checks it, plus what only a team row has (its columns, and its origin's hash and
// chain within the page). The joins between pages are the caller's (pg-audit-verify-parallel.ts).
import { checkLines, type RangeBad, type RangeOk, type RangeShape } from '../audit/verify-range.js';
import type { AuditEvent } from '../audit/record.js';
import { originLineHash } from './pg-audit-origin.js';

/**
 * The SQL that yields a row's columns as {@link columnsOf} writes them for its sealed event.
 * U+0001 can part them: every sealed value it covers is hex, digits or a name of [A-Za-z0-9._@:+-].
 */
export const COLUMNS_SQL = `concat_ws(E'\\x01', hash, machine_id, host, project_key, origin_seq, origin_hash)`;

/** What the row's columns (but seq) must say, given its sealed event; see {@link COLUMNS_SQL}. */
function columnsOf(e: AuditEvent): string {
  const o = e.origin!;
  return `${e.hash}\u0001${o.machine}\u0001${o.host}\u0001${o.project}\u0001${o.seq}\u0001${o.event_hash}`;
}

/** A page: its lines and its rows' columns, each joined by newlines, as this thread received them. */
export interface TeamRangeTask extends RangeShape {
  lines: string;
  columns: string;
  count: number;
}

/** Where one origin's chain enters and leaves the page: the joins with the pages around it. */
interface OriginEnds {
  key: string;
  firstSeq: number;
  firstPrev: string;
  lastSeq: number;
  lastHash: string;
}

export type TeamRangeResult = (RangeOk & { origins: OriginEnds[] }) | RangeBad;

/** Checks one page; anything but a clean page is {ok: false} (the caller then verifies serially). */
export function verifyTeamRange(task: TeamRangeTask): TeamRangeResult {
  // A newline inside a line or a column splits it apart: the counts differ and the page is not clean.
  const lines = task.lines.split('\n');
  const columns = task.columns.split('\n');
  if (lines.length !== task.count || columns.length !== task.count) return { ok: false };
  const ends = new Map<string, OriginEnds>();
  const r = checkLines(lines, task, (e, line, i) => {
    const o = e.origin;
    if (o === undefined || columns[i] !== columnsOf(e) || originLineHash(line, o) !== o.event_hash) return true;
    const key = `${o.machine}\u0000${o.project}`;
    const at = ends.get(key);
    if (at === undefined) {
      ends.set(key, { key, firstSeq: o.seq, firstPrev: o.prev_hash, lastSeq: o.seq, lastHash: o.event_hash });
      return false;
    }
    if (o.seq !== at.lastSeq + 1 || o.prev_hash !== at.lastHash) return true;
    at.lastSeq = o.seq;
    at.lastHash = o.event_hash;
    return false;
  });
  return r.ok ? { ...r, origins: [...ends.values()] } : r;
}
