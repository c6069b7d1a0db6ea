// One page of team log rows, checked on its own (in a worker thread): every line as the file
// verify checks it, plus what only a team row has (its columns, and its origin's hash and
// chain within the page). The joins between pages are the caller's (pg-audit-verify-parallel.ts).
import { isAscii } from 'node:buffer';
import { checkLines, type RangeBad, type RangeOk, type RangeShape } from '../audit/verify-range.js';
import type { AuditEvent } from '../audit/record.js';
import { originLineHash } from './pg-audit-origin.js';
import type { RowPage } from './pg-copy-pages.js';

/**
 * The SQL that yields a row's columns as {@link columnsOf} writes them for its sealed event.
 * U+0001 can part them: every sealed value it covers is hex, digits or a name of [A-Za-z0-9._@:+-].
 */
const COLUMNS_SQL = `concat_ws(E'\\x01', hash, machine_id, host, project_key, origin_seq, origin_hash)`;

/** What the row's columns (but seq) must say, given its sealed event; see {@link COLUMNS_SQL}. */
function columnsOf(e: AuditEvent): string {
  const o = e.origin!;
  return `${e.hash}\u0001${o.machine}\u0001${o.host}\u0001${o.project}\u0001${o.seq}\u0001${o.event_hash}`;
}

/** The SELECT whose rows a page holds (seq, then the sealed line, then {@link COLUMNS_SQL}): `limit` rows after seq `after` (a decimal integer). */
export function pageSelect(after: string, limit: number): string {
  if (!/^-?\d+$/.test(after) || !Number.isSafeInteger(limit)) throw new Error(`pageSelect: bad keyset ${after}, ${limit}`);
  return `SELECT seq, line, ${COLUMNS_SQL} FROM gh_audit_events WHERE seq > ${after} ORDER BY seq LIMIT ${limit}`;
}

/** A page: `count` rows of {@link pageSelect} as a binary COPY stream has them ({@link RowPage}), the first at position `first`. */
export interface TeamRangeTask extends RangeShape, RowPage {
  first: number;
}

/** A page's rows, each field decoded only when asked for: a page's strings then die young, one row at a time. */
interface PageRows {
  lines: { readonly length: number; at(i: number): string };
  columns(i: number): string;
}

/**
 * The page's rows, or null unless every row is (seq = its position as an int8, line, columns):
 * a seq column of another type, or NULL anywhere, is for the serial verify to report.
 */
function pageRows(task: TeamRangeTask): PageRows | null {
  const b = Buffer.from(task.bytes, 0, task.length);
  // Per row: where its line starts and ends, then its columns'.
  const at = new Int32Array(task.count * 4);
  let p = 0;
  const field = (slot: number): void => {
    const len = b.readInt32BE(p);
    if (len < 0 || p + 4 + len > b.length) throw new RangeError('a NULL, or a field past the page');
    at[slot] = p + 4;
    at[slot + 1] = p = p + 4 + len;
  };
  try {
    for (let i = 0; i < task.count; i++) {
      if (b.readInt16BE(p) !== 3 || b.readInt32BE(p + 2) !== 8 || b.readInt32BE(p + 6) * 2 ** 32 + b.readUInt32BE(p + 10) !== task.first + i) return null;
      p += 14;
      field(4 * i);
      field(4 * i + 2);
    }
  } catch {
    return null;
  }
  if (p !== b.length) return null;
  // A field of ASCII (the usual case) is read as latin1, a copy: UTF-8 decoding costs more.
  const text = (start: number, end: number): string => {
    const part = b.subarray(start, end);
    return part.toString(isAscii(part) ? 'latin1' : 'utf8');
  };
  return {
    lines: { length: task.count, at: (i) => text(at[4 * i]!, at[4 * i + 1]!) },
    columns: (i) => text(at[4 * i + 2]!, at[4 * i + 3]!),
  };
}

/** Where one origin's chain enters and leaves the page: the joins with the pages around it. */
interface OriginEnds {
  key: string;
  firstSeq: number;
  firstPrev: string;
  lastSeq: number;
  lastHash: string;
}

/** A page's result, and its buffer given back for a later page (PageBuffers, pg-copy-pages.ts). */
export type TeamRangeResult = ((RangeOk & { origins: OriginEnds[] }) | RangeBad) & { spare?: ArrayBuffer };

/**
 * Checks one page; anything but a clean page is {ok: false} (the caller then verifies serially).
 * The page's buffer goes back as `spare`: nothing of the result points into it.
 */
export function verifyTeamRange(task: TeamRangeTask): TeamRangeResult {
  return { ...checkPage(task), spare: task.bytes };
}

function checkPage(task: TeamRangeTask): TeamRangeResult {
  const rows = pageRows(task);
  if (rows === null) return { ok: false };
  const ends = new Map<string, OriginEnds>();
  const r = checkLines(rows.lines, task, (e, line, i) => {
    const o = e.origin;
    if (o === undefined || rows.columns(i) !== columnsOf(e) || originLineHash(line, o) !== o.event_hash) return true;
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
