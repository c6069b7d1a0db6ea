// The audit chain of one project: an append-only JSONL file of hash-chained events, each a
// leaf of an RFC 6962 tree whose signed checkpoints prove inclusion and append-only growth.
import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { openRegularFile, refused } from '../small-file.js';
import { basename, dirname, join, resolve } from 'node:path';
import { leafHash } from '../../core/crypto/merkle.js';
import { formatCheckpoint, signNote } from '../../core/crypto/signed-note.js';
import type { SigningKey } from '../keys.js';
import { appendCheckpoint, readCheckpointFile, type StoredCheckpoint } from './checkpoints.js';
import type { AuditEventType } from './events.js';
import { hashRange, readLastLines, readLines, readRange, readTail, type Tail } from './lines.js';
import { withLock } from './lock.js';
import { MerkleStore } from './merkle-store.js';
import { GENESIS_HASH, sealEvent, type AppendInput, type AuditEvent } from './record.js';
import { isoTime } from '../../core/iso-time.js';

export const LOG_FILE = 'log.jsonl';
const LOCK_FILE = 'log.lock';
const MERKLE_DIR = 'merkle';
export const CHECKPOINT_FILE = 'checkpoints.jsonl';
/** The principal the log names when it repairs itself. */
const REPAIR_ACTOR = 'system:audit-log';

/** An RFC 6962 inclusion proof in hex. */
export interface InclusionProof {
  leaf_index: number;
  tree_size: number;
  root: string;
  hashes: string[];
}

/** An RFC 6962 consistency proof in hex, from `first_size` to `second_size`. */
export interface ConsistencyProof {
  first_size: number;
  second_size: number;
  first_root: string;
  second_root: string;
  hashes: string[];
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Appends events to an open log under the lock, keeping chain and tree in step. */
class Writer {
  private nextSeq: number;
  private prevHash: string;
  private end: number;

  constructor(
    private readonly fd: number,
    tail: Tail,
    private readonly store: MerkleStore,
    private readonly now: () => Date,
  ) {
    this.end = tail.completeEnd;
    this.nextSeq = 0;
    this.prevHash = GENESIS_HASH;
    if (tail.lastLine !== null) {
      let last: { seq?: unknown; hash?: unknown } | null = null;
      try {
        last = JSON.parse(tail.lastLine.bytes.toString('utf8')) as { seq?: unknown; hash?: unknown };
      } catch {
        // reported below
      }
      if (!last || !Number.isSafeInteger(last.seq) || typeof last.hash !== 'string' || !/^[0-9a-f]{64}$/.test(last.hash)) {
        throw new Error(`audit: the last line of the log (byte ${tail.lastLine.offset}) is not an event, so the chain cannot be continued; run \`gatehouse audit verify\``);
      }
      this.nextSeq = (last.seq as number) + 1;
      this.prevHash = last.hash;
    }
  }

  write<T extends AuditEventType>(input: AppendInput<T>): AuditEvent<T> {
    return this.writeLine(input).event;
  }

  /** {@link write}, returning the canonical line (no newline) as well. */
  writeLine<T extends AuditEventType>(input: AppendInput<T>): { event: AuditEvent<T>; line: string } {
    const { event, line } = sealEvent(input, this.nextSeq, this.prevHash, this.now);
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    // One write on an O_APPEND fd: the line lands whole at the end, never interleaved with
    // another writer's. A reader racing it may see part of it, as a torn tail.
    const written = writeSync(this.fd, bytes);
    if (written !== bytes.length) throw new Error(`audit: short write (${written} of ${bytes.length} bytes); the next append repairs the log`);
    this.end += bytes.length;
    this.store.append(leafHash(bytes.subarray(0, bytes.length - 1)), this.end);
    this.nextSeq++;
    this.prevHash = event.hash;
    return { event, line };
  }
}

/** What {@link AuditLog.appendAndCheckpoint} wrote: each event with its line and inclusion proof, and the checkpoint. */
export interface Sealed {
  events: { event: AuditEvent; line: string; proof: InclusionProof }[];
  checkpoint: StoredCheckpoint;
}

/** The checkpoint origin of an audit folder: `gatehouse/<project>`. */
function defaultOrigin(auditDir: string): string {
  return `gatehouse/${basename(dirname(resolve(auditDir))).replace(/[\s+]/gu, '_')}`;
}

/**
 * One project's audit log in `<projectState>/audit/`. All methods are synchronous:
 * hooks call them. Appends and checkpoints take a cross-process lock; reads do not.
 * Durability against power loss is not in the threat model (no fsync per append);
 * tamper evidence is.
 * @example new AuditLog(join(state, 'audit')).append({ type: 'session_started', actor: 'system:cli', session_id: 's1', data: { agent: 'claude', worktree: '/w' } })
 */
export class AuditLog {
  readonly logPath: string;
  readonly lockPath: string;
  readonly checkpointPath: string;
  private readonly store: MerkleStore;

  constructor(
    readonly auditDir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.logPath = join(auditDir, LOG_FILE);
    this.lockPath = join(auditDir, LOCK_FILE);
    this.checkpointPath = join(auditDir, CHECKPOINT_FILE);
    this.store = new MerkleStore(join(auditDir, MERKLE_DIR));
  }

  /**
   * Under the lock: cuts off a line a killed writer left unfinished (recording an
   * `audit_repaired` event), brings the Merkle cache level with the log, then runs `fn`.
   */
  private locked<T>(fn: (w: Writer) => T): T {
    mkdirSync(this.auditDir, { recursive: true, mode: 0o700 });
    return withLock(this.lockPath, () => this.store.hold(() => this.lockedBody(fn)));
  }

  private lockedBody<T>(fn: (w: Writer) => T): T {
    const fd = openSync(this.logPath, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600);
    try {
      const st = fstatSync(fd);
      // A FIFO the agent put here opens read-write without blocking; nothing written to it would be kept.
      if (!st.isFile()) throw refused(this.logPath, 'ENOTREG', 'is not a regular file: the audit log cannot be appended to');
      const tail = readTail(fd, st.size);
      let repaired: { dropped_bytes: number; dropped_sha256: string } | null = null;
      if (tail.torn !== null) {
        repaired = { dropped_bytes: tail.torn.length, dropped_sha256: hashRange(fd, tail.torn.offset, tail.torn.offset + tail.torn.length) };
        ftruncateSync(fd, tail.completeEnd);
      }
      const state = this.store.state(tail);
      if (state === 'one-behind') this.store.append(leafHash(tail.lastLine!.bytes), tail.completeEnd);
      else if (state === 'stale') this.store.rebuild(fd, tail.completeEnd);
      const writer = new Writer(fd, tail, this.store, this.now);
      if (repaired !== null) writer.write({ type: 'audit_repaired', actor: REPAIR_ACTOR, session_id: null, data: repaired });
      return fn(writer);
    } finally {
      closeSync(fd);
    }
  }

  /** Appends one event and returns it as written. Throws (for the caller to log) on a bad input or a lock timeout. */
  append<T extends AuditEventType>(input: AppendInput<T>): AuditEvent<T> {
    return this.locked((w) => w.write(input));
  }

  /**
   * Runs `fn` under the log's lock with a way to append, so that a step taken elsewhere and
   * its event are one step for every process that also takes this lock (an approval's one
   * resolution and its decision). `fn` must be short and synchronous, and must not call
   * another method of this log (the lock is not re-entrant).
   */
  transact<R>(fn: (append: <T extends AuditEventType>(input: AppendInput<T>) => AuditEvent<T>) => R): R {
    return this.locked((w) => fn((input) => w.write(input)));
  }

  /** Repairs a torn last line and the Merkle cache without appending anything else. */
  repair(): void {
    this.locked(() => undefined);
  }

  /**
   * Signs the current tree head as a C2SP checkpoint and appends it to checkpoints.jsonl.
   * No event is appended for it: that would change the tree it signs.
   */
  checkpoint(key: SigningKey, origin = defaultOrigin(this.auditDir)): StoredCheckpoint {
    return this.locked(() => this.signHead(key, origin));
  }

  /**
   * Appends `inputs` in order and signs a checkpoint over them, in one hold of the lock (one
   * step for every other writer, and a third of the lock work of an append per event and a
   * checkpoint); returns each event with its line and its inclusion proof in that checkpoint.
   */
  appendAndCheckpoint(inputs: readonly AppendInput[], key: SigningKey, origin = defaultOrigin(this.auditDir)): Sealed {
    return this.locked((w) => {
      const written = inputs.map((input) => w.writeLine(input));
      const checkpoint = this.signHead(key, origin);
      return { events: written.map(({ event, line }) => ({ event, line, proof: this.inclusionProof(event.seq, checkpoint.tree_size) })), checkpoint };
    });
  }

  /** Under the lock: signs the tree head and appends it to checkpoints.jsonl. */
  private signHead(key: SigningKey, origin: string): StoredCheckpoint {
    const size = this.store.size();
    const root = this.store.root(size);
    const note = signNote(formatCheckpoint({ origin, size, root }), key.name, key.privateKey, key.publicKey);
    const record: StoredCheckpoint = { tree_size: size, root: hex(root), note, key_id: key.keyId, time: isoTime(this.now()) };
    appendCheckpoint(this.checkpointPath, record);
    return record;
  }

  checkpoints(): StoredCheckpoint[] {
    return readCheckpointFile(this.checkpointPath).records;
  }

  latestCheckpoint(): StoredCheckpoint | null {
    return this.checkpoints().at(-1) ?? null;
  }

  /** Events committed to the Merkle tree (every append and checkpoint brings it level with the log). */
  size(): number {
    return this.store.size();
  }

  /** Hex RFC 6962 root of the first `size` events. */
  root(size = this.size()): string {
    return hex(this.store.root(size));
  }

  inclusionProof(seq: number, size = this.size()): InclusionProof {
    return { leaf_index: seq, tree_size: size, root: this.root(size), hashes: this.store.inclusionProof(seq, size).map(hex) };
  }

  consistencyProof(m: number, n = this.size()): ConsistencyProof {
    return { first_size: m, second_size: n, first_root: this.root(m), second_root: this.root(n), hashes: this.store.consistencyProof(m, n).map(hex) };
  }

  /**
   * Where event `seq`'s line ends (just past its newline), as the log's index says; null when
   * there is no such event. The index is a hint: a reader checks the line it finds there.
   */
  lineEndOf(seq: number): number | null {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= this.store.size()) return null;
    return this.store.lineEnd(seq);
  }

  /** The canonical line of event `seq` (no newline), or null when there is no such event. */
  line(seq: number): string | null {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= this.store.size()) return null;
    const start = seq === 0 ? 0 : this.store.lineEnd(seq - 1);
    const end = this.store.lineEnd(seq) - 1;
    return this.withLogFd((fd) => readRange(fd, start, end - start).toString('utf8'));
  }

  /** The last `n` complete events, oldest first. */
  tail(n: number): AuditEvent[] {
    return (
      this.withLogFd((fd) => {
        const { completeEnd } = readTail(fd, fstatSync(fd).size);
        return readLastLines(fd, completeEnd, n).map((b) => JSON.parse(b.toString('utf8')) as AuditEvent);
      }) ?? []
    );
  }

  /** Every complete event in order, read in chunks (a torn last line is skipped). */
  *events(): Generator<AuditEvent> {
    let fd: number;
    try {
      fd = openRegularFile(this.logPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    try {
      for (const l of readLines(fd)) if (l.complete) yield JSON.parse(l.bytes.toString('utf8')) as AuditEvent;
    } finally {
      closeSync(fd);
    }
  }

  private withLogFd<T>(fn: (fd: number) => T): T | null {
    let fd: number;
    try {
      fd = openRegularFile(this.logPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      return fn(fd);
    } finally {
      closeSync(fd);
    }
  }
}
