// The serialized append of the team audit log: one transaction per batch locks the head row,
// seals each event onto the chain exactly as the file store would, inserts the rows, moves the
// head and its Merkle frontier, and signs a checkpoint when one is due.
import type { PoolClient } from 'pg';
import { CompactRange, HASH_SIZE } from '../../core/crypto/merkle.js';
import { formatCheckpoint, signNote } from '../../core/crypto/signed-note.js';
import { sealEvent, type AuditEvent, type EventOrigin } from '../audit/record.js';
import type { SigningKey } from '../keys.js';
import type { Machine } from './machine.js';
import { inTransaction, type PgStore } from './pg-connect.js';
import { isoTime } from '../../core/iso-time.js';

/**
 * A checkpoint is signed at the end of a batch once the tree has grown by this many events
 * since the last one, or once the last one is CHECKPOINT_EVERY_MS old: often enough that little
 * rests on the hash chain alone, rarely enough that checkpoints stay a small fraction of rows.
 */
const CHECKPOINT_EVERY_EVENTS = 1_000;
const CHECKPOINT_EVERY_MS = 10_000;

/** Where forwarded events come from. */
export interface TeamOrigin {
  machine: Machine;
  project: string;
}

/** What one batch did. */
export interface AppendOutcome {
  /** Events written now. */
  appended: number;
  /** Events already in the store (a retried forward), skipped. */
  skipped: number;
  /** The team tree's size after the batch. */
  size: number;
  /** Whether a checkpoint was signed. */
  checkpointed: boolean;
}

/** The head row as read under its lock. */
interface Head {
  logId: string;
  size: number;
  lastHash: string;
  range: CompactRange;
  checkpointSize: number;
  checkpointStale: boolean;
}

/** The local event forwarding is about to write is not the one after what the store holds: the local log diverged from what it forwarded. */
export class OriginGapError extends Error {}

/** A host name as an origin may carry it (record.ts ORIGIN_NAME). */
export function originHost(host: string): string {
  return host.replace(/[^A-Za-z0-9._@:+-]/g, '_').slice(0, 255) || 'unknown';
}

/** Rebuilds the right edge of the tree from the head's frontier: one subtree per set bit of size, leftmost first. */
function rangeFrom(size: number, frontier: Buffer): CompactRange {
  const range = new CompactRange();
  let at = 0;
  for (let level = 62; level >= 0; level--) {
    if (Math.floor(size / 2 ** level) % 2 === 0) continue;
    if (at + HASH_SIZE > frontier.length) throw new Error(`gh_audit_head: the frontier holds ${frontier.length / HASH_SIZE} hashes, too few for size ${size}`);
    range.pushSubtree(level, frontier.subarray(at, at + HASH_SIZE));
    at += HASH_SIZE;
  }
  if (at !== frontier.length) throw new Error(`gh_audit_head: the frontier holds more hashes than size ${size} has subtrees`);
  return range;
}

async function lockHead(c: PoolClient, checkpointMs: number): Promise<Head> {
  const r = await c.query<{ log_id: string; size: string; last_hash: string; frontier: Buffer; checkpoint_size: string; stale: boolean }>(
    `SELECT log_id, size, last_hash, frontier, checkpoint_size,
            (checkpoint_at IS NULL OR now() - checkpoint_at >= make_interval(secs => $1)) AS stale
       FROM gh_audit_head WHERE id = 1 FOR UPDATE`,
    [checkpointMs / 1000],
  );
  const row = r.rows[0];
  if (row === undefined) throw new Error('gh_audit_head has no row: the team store was not migrated');
  const size = Number(row.size);
  return { logId: row.log_id, size, lastHash: row.last_hash, range: rangeFrom(size, row.frontier), checkpointSize: Number(row.checkpoint_size), checkpointStale: row.stale };
}

/** The checkpoint origin line of the team log (C2SP: a name for the log). */
function teamCheckpointOrigin(logId: string): string {
  return `gatehouse/${logId}`;
}

/** Signs the head's tree and stores the note; the caller holds the head lock. */
async function signCheckpoint(c: PoolClient, head: Head, key: SigningKey, machine: Machine): Promise<void> {
  const root = head.range.root();
  const note = signNote(formatCheckpoint({ origin: teamCheckpointOrigin(head.logId), size: head.size, root }), key.name, key.privateKey, key.publicKey);
  await c.query(`INSERT INTO gh_audit_checkpoints (tree_size, root, note, key_id, machine_id, time) VALUES ($1, $2, $3, $4, $5, $6)`, [
    head.size,
    root.toString('hex'),
    note,
    key.keyId,
    machine.id,
    isoTime(),
  ]);
  await c.query(`UPDATE gh_audit_head SET checkpoint_size = $1, checkpoint_at = now() WHERE id = 1`, [head.size]);
}

/** When to sign a checkpoint at the end of a batch. */
type CheckpointWhen = 'due' | 'force' | 'never';

/** Options of {@link appendTeamEvents}. */
export interface AppendOptions {
  /** 'due' (default): by CHECKPOINT_EVERY_EVENTS / _MS; 'force': whenever the tree grew since the last; 'never'. */
  checkpoint?: CheckpointWhen;
  /** Override of CHECKPOINT_EVERY_EVENTS (tests). */
  checkpointEvery?: number;
  checkpointMs?: number;
}

/**
 * Appends `events` — consecutive local events of one (machine, project), oldest first — to the
 * team log in one transaction. Events the store already holds are skipped, so a retry after a
 * lost commit writes nothing twice. Throws OriginGapError when the first new event does not
 * continue what the store holds for that origin, and the driver's error when the store fails.
 */
export async function appendTeamEvents(store: PgStore, from: TeamOrigin, events: readonly AuditEvent[], key: SigningKey, opts: AppendOptions = {}): Promise<AppendOutcome> {
  const when = opts.checkpoint ?? 'due';
  const every = opts.checkpointEvery ?? CHECKPOINT_EVERY_EVENTS;
  const host = originHost(from.machine.host);
  return inTransaction(store.pool, async (c) => {
    const head = await lockHead(c, opts.checkpointMs ?? CHECKPOINT_EVERY_MS);
    const last = await c.query<{ origin_seq: string; origin_hash: string }>(
      `SELECT origin_seq, origin_hash FROM gh_audit_events WHERE machine_id = $1 AND project_key = $2 ORDER BY origin_seq DESC LIMIT 1`,
      [from.machine.id, from.project],
    );
    const have = last.rows[0] === undefined ? -1 : Number(last.rows[0].origin_seq);
    // A retry overlaps what the store holds; the overlap must be the very events stored, or a
    // row put there by someone else would silently stand in for this machine's own event.
    const overlap = events.find((e) => e.seq === have);
    if (overlap !== undefined && overlap.hash !== last.rows[0]!.origin_hash) {
      throw new OriginGapError(`the store holds a different event as this project's local seq ${have} than the local log does`);
    }
    const fresh = events.filter((e) => e.seq > have);
    if (fresh.length > 0) {
      const first = fresh[0]!;
      const expectedPrev = last.rows[0]?.origin_hash ?? first.prev_hash;
      if (first.seq !== have + 1 || (have >= 0 && first.prev_hash !== expectedPrev)) {
        throw new OriginGapError(
          `the store holds this project's local events up to seq ${have}, and the next one to forward is seq ${first.seq}${first.seq === have + 1 ? ' with a different prev_hash' : ''}`,
        );
      }
      const cols: [number[], string[], string[], number[], string[]] = [[], [], [], [], []];
      let seq = head.size;
      let prev = head.lastHash;
      for (const e of fresh) {
        const origin: EventOrigin = { machine: from.machine.id, host, project: from.project, seq: e.seq, prev_hash: e.prev_hash, event_hash: e.hash };
        const { event, line } = sealEvent({ type: e.type, actor: e.actor, session_id: e.session_id, data: e.data, time: e.time, origin }, seq, prev);
        head.range.pushData(line);
        cols[0].push(seq);
        cols[1].push(line);
        cols[2].push(event.hash);
        cols[3].push(e.seq);
        cols[4].push(e.hash);
        seq++;
        prev = event.hash;
      }
      await c.query(
        `INSERT INTO gh_audit_events (seq, line, hash, machine_id, host, project_key, origin_seq, origin_hash)
         SELECT s, l, h, $6, $7, $8, os, oh FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS t(s, l, h, os, oh)`,
        [...cols, from.machine.id, host, from.project],
      );
      head.size = seq;
      head.lastHash = prev;
      await c.query(`UPDATE gh_audit_head SET size = $1, last_hash = $2, frontier = $3 WHERE id = 1`, [head.size, head.lastHash, Buffer.concat(head.range.frontier())]);
    }
    const grown = head.size > head.checkpointSize;
    const due = when === 'force' ? grown : when === 'due' && grown && (head.size - head.checkpointSize >= every || head.checkpointStale);
    if (due) await signCheckpoint(c, head, key, from.machine);
    return { appended: fresh.length, skipped: events.length - fresh.length, size: head.size, checkpointed: due };
  });
}
