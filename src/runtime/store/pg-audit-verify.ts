// `audit verify --store`: recomputes the team log from its rows — each line's hash, the chain,
// seq contiguity, every origin's own chain, the Merkle roots, the head row, and every checkpoint
// against keys the operator trusts (never keys from the database) — in one read-only snapshot.
import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { PoolClient } from 'pg';
import { CompactRange, emptyRoot } from '../../core/crypto/merkle.js';
import type { AuditEventDataMap } from '../audit/events.js';
import { GENESIS_HASH, type AuditEvent } from '../audit/record.js';
import { finishVerify, learnRotation, planFromCheckpoints, type LogScan, type VerifyPlan, type VerifyReport } from '../audit/verify.js';
import type { Finding } from '../audit/verify-checkpoints.js';
import { chainAfter, lineProblem, parseObject } from '../audit/verify-line.js';
import { originLineHash } from './pg-audit-origin.js';
import type { PgStore } from './pg-connect.js';
import { defaultTeamWorkerFile, scanRowsParallel, teamVerifyThreads, type TeamVerifyOptions } from './pg-audit-verify-parallel.js';
import { ALL_COLUMNS, checkpointRows, eventPages, inSnapshot, PAGE_ROWS, rowCount } from './pg-audit-rows.js';

// A column may be NULL if someone with database access dropped its NOT NULL.
type Row = [seq: string, line: string | null, hash: string, machine: string, host: string, project: string, originSeq: string, originHash: string];

/** What the row's own columns must say, given its sealed event. */
function columnProblem(row: Row, e: AuditEvent): string | null {
  const o = e.origin;
  if (o === undefined) return 'the event carries no origin: it was not forwarded by a machine (a row inserted by hand)';
  if (row[0] !== String(e.seq)) return `the row's seq column is ${row[0]} but its sealed event is seq ${e.seq}: rows were renumbered`;
  if (row[2] !== e.hash) return "the row's hash column differs from its sealed event's hash";
  if (row[3] !== o.machine || row[4] !== o.host || row[5] !== o.project || row[6] !== String(o.seq) || row[7] !== o.event_hash) {
    return `the row's origin columns (${row[3]}, ${row[4]}, ${row[5]}, seq ${row[6]}) differ from the origin sealed in its event (${o.machine}, ${o.host}, ${o.project}, seq ${o.seq}): the row was re-attributed`;
  }
  return null;
}

/** Each origin's own chain: its local events in order, each linked to the one before, and each hash recomputable. */
class OriginChains {
  private readonly last = new Map<string, { seq: number; hash: string }>();

  problem(e: AuditEvent, line: string): string | null {
    const o = e.origin!;
    const key = `${o.machine}\u0000${o.project}`;
    const before = this.last.get(key);
    this.last.set(key, { seq: o.seq, hash: o.event_hash });
    const who = `machine ${o.machine} (${o.host}), project ${o.project}`;
    if (originLineHash(line, o) !== o.event_hash) return `${who}: origin.event_hash is not the hash of the local event this row copies: its content or origin was changed`;
    const expected = before === undefined ? 0 : before.seq + 1;
    if (o.seq !== expected) return `${who}: local seq ${o.seq} follows ${before === undefined ? 'nothing' : `local seq ${before.seq}`}: that machine's events were removed, reordered or duplicated`;
    if (o.prev_hash !== (before?.hash ?? GENESIS_HASH)) return `${who}: local seq ${o.seq} does not link to the machine's event before it: its chain was broken`;
    return null;
  }
}

/** Streams the rows once: line checks, columns, origins, leaves and roots at checkpoint sizes. */
async function scanRows(c: PoolClient, plan: VerifyPlan, pageRows: number): Promise<LogScan> {
  const range = new CompactRange(plan.recorder.onNode);
  const rootAt = new Map<number, Buffer>();
  if (plan.wanted.has(0)) rootAt.set(0, emptyRoot());
  const findings: Finding[] = [];
  const origins = new OriginChains();
  let prevSeq = -1;
  let prevHash: string | null = GENESIS_HASH;
  for await (const rows of eventPages<Row>(c, ALL_COLUMNS, pageRows)) {
    for (const row of rows) {
      const at = range.size;
      // A NULL line is checked as an empty one: not a JSON object.
      const text = row[1] ?? '';
      const e = parseObject(text);
      const problem = lineProblem(e, text, null, prevSeq, prevHash) ?? columnProblem(row, e as unknown as AuditEvent) ?? origins.problem(e as unknown as AuditEvent, text);
      if (problem !== null) findings.push({ seq: at, reason: problem });
      else if (e!.type === 'key_rotated') learnRotation(e!.data as AuditEventDataMap['key_rotated'], at, plan.keys, findings);
      // Resynchronise as the file verify does: one deletion or swap is reported once or twice.
      ({ seq: prevSeq, hash: prevHash } = chainAfter(e, { seq: prevSeq, hash: prevHash }));
      range.pushData(text);
      plan.recorder.atSize(range);
      if (plan.wanted.has(range.size)) rootAt.set(range.size, range.root());
    }
  }
  return { events: range.size, range, rootAt, findings };
}

/** The head row must agree with the rows: a row deleted or added outside the append shows here. */
async function headFindings(c: PoolClient, scan: LogScan): Promise<Finding[]> {
  const r = await c.query<{ size: string; last_hash: string; frontier: Buffer }>(`SELECT size, last_hash, frontier FROM gh_audit_head WHERE id = 1`);
  const head = r.rows[0];
  if (head === undefined) return [{ seq: null, reason: 'the head row (gh_audit_head) is missing' }];
  const size = Number(head.size);
  const out: Finding[] = [];
  if (size !== scan.events) {
    out.push({
      seq: Math.min(size, scan.events),
      reason: `the head row records ${size} events but the table holds ${scan.events} rows: rows were ${size > scan.events ? 'deleted' : 'inserted'} outside the append`,
    });
  } else if (size > 0 && !Buffer.concat(scan.range.frontier()).equals(head.frontier)) {
    out.push({ seq: null, reason: "the head row's Merkle frontier does not match the rows: the rows or the head were changed outside the append" });
  }
  return out;
}

/**
 * Rows that no scan in seq order reaches: a NULL seq, or a seq repeated where one keyset page
 * ends and the next begins after it. Only possible once someone dropped the table's primary key.
 */
function unreadFindings(rows: number, scan: LogScan): Finding[] {
  if (rows === scan.events) return [];
  return [
    {
      seq: null,
      reason: `the table holds ${rows} rows but ${scan.events} of them are in seq order: rows with a NULL or repeated seq were inserted outside the append (its primary key was dropped)`,
    },
  ];
}

async function haltFindings(c: PoolClient): Promise<Finding[]> {
  const r = await c.query<{ machine_id: string; host: string; project_key: string; origin_seq: string; reason: string }>(
    `SELECT machine_id, host, project_key, origin_seq, reason FROM gh_audit_halts ORDER BY machine_id, project_key`,
  );
  return r.rows.map((h) => ({
    seq: null,
    reason: `machine ${h.machine_id} (${h.host}) stopped forwarding project ${h.project_key} at its local seq ${h.origin_seq}: ${h.reason}; its later events are not in the team log`,
  }));
}

/** The head row's size: how big the log is said to be (only a hint for how to scan it). */
async function headSize(c: PoolClient): Promise<number> {
  const r = await c.query<{ size: string }>(`SELECT size FROM gh_audit_head WHERE id = 1`);
  return Number(r.rows[0]?.size ?? 0);
}

/**
 * Verifies the team log in `store` against `trustedKeys` (the machines' public keys, given by
 * the operator). Same report as the file verify; `first_bad.seq` is a team seq. A large log is
 * checked on worker threads; on any problem it is verified again on this thread, in the same
 * snapshot, for the exact report.
 * @example const r = await verifyTeamAudit(store, keys); if (!r.ok) console.error(r.first_bad)
 */
export async function verifyTeamAudit(store: PgStore, trustedKeys: KeyObject[], opts: TeamVerifyOptions & { pageRows?: number } = {}): Promise<VerifyReport> {
  return inSnapshot(store, async (c) => {
    const records = await checkpointRows(c);
    // A scan learns keys and records proof nodes into its plan: a serial rerun starts from a fresh one.
    const freshPlan = (): VerifyPlan => planFromCheckpoints({ records, problems: [], tornBytes: 0 }, trustedKeys);
    let plan = freshPlan();
    const threads = teamVerifyThreads(await headSize(c), opts.threads, opts.minRows);
    const workerFile = opts.workerFile ?? defaultTeamWorkerFile();
    const rows = await rowCount(c);
    let scan = threads > 1 && existsSync(workerFile) ? await scanRowsParallel(c, plan, threads, workerFile, opts.statementRows) : null;
    // A row the scan never reached (its seq NULL, or repeated where one keyset page ends) is for the serial scan to report.
    if (scan !== null && scan.events !== rows) scan = null;
    if (scan === null) {
      plan = freshPlan();
      scan = await scanRows(c, plan, opts.pageRows ?? PAGE_ROWS);
    }
    const extra = [...unreadFindings(rows, scan), ...(await headFindings(c, scan)), ...(await haltFindings(c))];
    const report = finishVerify(plan, { ...scan, findings: [...scan.findings, ...extra.filter((f) => f.seq !== null)] });
    const loose = extra.filter((f) => f.seq === null).map((f) => f.reason);
    return loose.length === 0 ? report : { ...report, ok: false, first_bad: report.first_bad ?? { seq: null, reason: loose[0]! }, problems: [...report.problems, ...loose] };
  });
}
