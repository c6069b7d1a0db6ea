// The audit verify on several cores: worker threads check ranges of the log (each line's
// form, hash and chain link, and the roots of the whole subtrees its leaves make) while this
// thread joins them in order and grows the Merkle tree from those roots. Any problem at all, and the log is verified serially instead, so a
// damaged log gets exactly the serial report (the same first bad seq and message).
import type { KeyObject } from 'node:crypto';
import { closeSync, existsSync, readSync, statSync } from 'node:fs';
import { openRegularFile } from '../small-file.js';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompactRange, emptyRoot, HASH_SIZE } from '../../core/crypto/merkle.js';
import { LOG_FILE } from './log.js';
import { GENESIS_HASH } from './record.js';
import type { RangeOk, RangeBad, RangeTask } from './verify-range.js';
import { finishVerify, learnRotation, planVerify, verifyAudit, type LogScan, type VerifyPlan, type VerifyReport } from './verify.js';
import type { Finding } from './verify-checkpoints.js';
import { runInOrder } from './worker-pool.js';

/**
 * Below this log size one thread is faster here: a new worker costs about 70 ms to start on the
 * shared 2-core machine. In fresh processes an 18 MB log (40,000 events) verified as fast on two
 * workers as on one, a 45 MB one (100,000) 1.25× faster, and a 4.5 MB one at half the speed.
 */
const PARALLEL_MIN_BYTES = 32 << 20;

/**
 * Bytes per range a worker checks (~4,500 typical events). It answers with the few complete
 * subtrees its lines make, so this thread hashes only the nodes above them. Big enough that
 * messages cost nothing, small enough to spread the work.
 */
const RANGE_BYTES = 2 << 20;

/** Rows per page of the team verify: a whole subtree, so that each page is one root. */
export const RANGE_LINES = 2 ** 12;

/** Most worker threads used, whatever the core count: past this, the joining thread is the limit. */
const MAX_THREADS = 16;

/** Options for {@link verifyAuditParallel}. */
export interface ParallelVerifyOptions {
  /** Worker threads; default: the available cores (at most 16). 1 verifies serially. */
  threads?: number;
  /** The built worker (dist/audit-verify-worker.js); without it, verify runs serially. */
  workerFile?: string;
  /** Smallest log (bytes) verified in parallel; default 32 MB. */
  minBytes?: number;
}

/** The worker shipped beside the bundle that holds this code. */
function defaultWorkerFile(): string {
  return fileURLToPath(new URL('./audit-verify-worker.js', import.meta.url));
}

/**
 * How many worker threads {@link verifyAuditParallel} uses for a log of `bytes` bytes (1: it verifies serially).
 * @example verifyThreads(statSync(join(auditDir, "log.jsonl")).size) // 2 on two cores for a 100 MB log
 */
export function verifyThreads(bytes: number, threads = Math.min(availableParallelism(), MAX_THREADS), minBytes = PARALLEL_MIN_BYTES): number {
  return bytes < minBytes ? 1 : Math.max(1, threads);
}

/**
 * The tree sizes the join must reach exactly, ascending: each checkpoint's size. That is enough
 * for the consistency proofs too. Every node a proof from m to n needs is a complete subtree
 * inside [0, m) or [m, n), or a range that ends at n. A subtree pushed whole that held such a
 * node inside it would have to cross m.
 */
export function cutPoints(plan: VerifyPlan): number[] {
  return [...plan.wanted].sort((a, b) => a - b);
}

/** The cuts inside each range [first, end), asked for in ascending order. */
export function cutsWithin(cuts: readonly number[]): (first: number, end: number) => number[] {
  let i = 0;
  return (first, end) => {
    while (i < cuts.length && cuts[i]! <= first) i++;
    const out: number[] = [];
    for (let j = i; j < cuts.length && cuts[j]! < end; j++) out.push(cuts[j]!);
    return out;
  };
}

/**
 * The log cut into ranges of about RANGE_BYTES, each ending just past a newline (the last at the
 * file's end), found as the workers ask for them: this thread reads only a little past each cut,
 * never the whole log, so it is not what limits a verify on many cores.
 */
function* splitAtBytes(file: string, size: number): Generator<RangeTask> {
  const window = Buffer.allocUnsafe(64 << 10);
  const fd = openRegularFile(file);
  try {
    let start = 0;
    for (let pos = RANGE_BYTES; pos < size;) {
      const n = readSync(fd, window, 0, Math.min(window.length, size - pos), pos);
      if (n === 0) break;
      const nl = window.subarray(0, n).indexOf(0x0a);
      if (nl === -1) {
        // A long line: look further.
        pos += n;
        continue;
      }
      yield { file, start, end: pos + nl + 1 };
      start = pos + nl + 1;
      pos = start + RANGE_BYTES;
    }
    // A torn last line goes with the range before it, which then fails: the serial verify reports it.
    if (start < size) yield { file, start, end: size };
  } finally {
    closeSync(fd);
  }
}

/** Joins the ranges' results in log order into what the serial scan would have found; `broken` on any problem. */
export class Joiner {
  readonly range: CompactRange;
  readonly rootAt = new Map<number, Buffer>();
  readonly findings: Finding[] = [];
  private lastHash = GENESIS_HASH;
  broken = false;

  constructor(private readonly plan: VerifyPlan) {
    this.range = new CompactRange(plan.recorder.onNode);
    if (plan.wanted.has(0)) this.rootAt.set(0, emptyRoot());
  }

  add(r: RangeOk | RangeBad): void {
    if (this.broken) return;
    if (!r.ok || r.firstSeq !== this.range.size || r.firstPrev !== this.lastHash) {
      this.broken = true;
      return;
    }
    // No checkpoint or proof ends inside a piece (cutPoints), so learning the range's rotations
    // before its pieces is learning each where the serial scan does: before any size past it.
    for (const rot of r.rotations) learnRotation(rot.data, r.firstSeq + rot.index, this.plan.keys, this.findings);
    const pieces = new Uint8Array(r.pieces);
    for (let i = 0; i < r.levels.length; i++) {
      this.range.pushSubtree(r.levels[i]!, pieces.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
      this.plan.recorder.atSize(this.range);
      if (this.plan.wanted.has(this.range.size)) this.rootAt.set(this.range.size, this.range.root());
    }
    this.lastHash = r.lastHash;
  }

  scan(): LogScan {
    return { events: this.range.size, range: this.range, rootAt: this.rootAt, findings: this.findings };
  }
}

/**
 * {@link verifyAudit} on several cores: the same report for every log, intact or not. A log under
 * {@link PARALLEL_MIN_BYTES}, one thread, or no built worker: the serial verify itself.
 * @example const r = await verifyAuditParallel(join(state, 'audit'), keys); if (!r.ok) console.error(r.first_bad)
 */
export async function verifyAuditParallel(auditDir: string, trustedKeys: KeyObject[], opts: ParallelVerifyOptions = {}): Promise<VerifyReport> {
  const logFile = join(auditDir, LOG_FILE);
  const workerFile = opts.workerFile ?? defaultWorkerFile();
  let size: number;
  try {
    size = statSync(logFile).size;
  } catch {
    return verifyAudit(auditDir, trustedKeys);
  }
  const threads = verifyThreads(size, opts.threads, opts.minBytes);
  if (threads < 2 || !existsSync(workerFile)) return verifyAudit(auditDir, trustedKeys);
  const plan = planVerify(auditDir, trustedKeys);
  const scan = await scanLogParallel(logFile, size, plan, threads, workerFile);
  // Anything wrong (or a log that changed while it was read): the serial verify finds and names it.
  return scan === null ? verifyAudit(auditDir, trustedKeys) : finishVerify(plan, scan);
}

/** Scans the first `size` bytes of the log on `threads` workers: what the serial scan finds on a clean log, or null when anything is wrong. */
export async function scanLogParallel(logFile: string, size: number, plan: VerifyPlan, threads: number, workerFile: string): Promise<LogScan | null> {
  const joiner = new Joiner(plan);
  try {
    await runInOrder(
      workerFile,
      threads,
      splitAtBytes(logFile, size),
      (r: RangeOk | RangeBad) => joiner.add(r),
      () => joiner.broken,
      { workerData: { cuts: cutPoints(plan) } },
    );
  } catch {
    return null;
  }
  return joiner.broken ? null : joiner.scan();
}
