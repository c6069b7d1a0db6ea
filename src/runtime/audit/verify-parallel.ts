// The audit verify on several cores: worker threads check ranges of the log (each line's
// form, hash and chain link, and its leaf hash) while this thread joins them in order and
// grows the Merkle tree. Any problem at all, and the log is verified serially instead, so a
// damaged log gets exactly the serial report (the same first bad seq and message).
import type { KeyObject } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
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
 * Below this log size one thread is faster here: on the shared 2-core machine a 45 MB log
 * (100,000 events) still verified faster serially, a 180 MB one 1.3× faster on two workers.
 */
const PARALLEL_MIN_BYTES = 64 << 20;

/**
 * Lines per range a worker checks (~2 MB of typical events): a whole subtree, so that a worker
 * returns its root and this thread hashes only the few nodes above. Big enough that messages
 * cost nothing, small enough to spread the work.
 */
const RANGE_LEVEL = 12;
export const RANGE_LINES = 2 ** RANGE_LEVEL;

/** Most worker threads used, whatever the core count: past this, the joining thread is the limit. */
const MAX_THREADS = 16;

/** Options for {@link verifyAuditParallel}. */
export interface ParallelVerifyOptions {
  /** Worker threads; default: the available cores (at most 16). 1 verifies serially. */
  threads?: number;
  /** The built worker (dist/audit-verify-worker.js); without it, verify runs serially. */
  workerFile?: string;
  /** Smallest log (bytes) verified in parallel; default 64 MB. */
  minBytes?: number;
}

/** The worker shipped beside the bundle that holds this code. */
function defaultWorkerFile(): string {
  return fileURLToPath(new URL('./audit-verify-worker.js', import.meta.url));
}

/** How many worker threads {@link verifyAuditParallel} uses for a log of `bytes` bytes. */
export function verifyThreads(bytes: number, threads = Math.min(availableParallelism(), MAX_THREADS), minBytes = PARALLEL_MIN_BYTES): number {
  return bytes < minBytes ? 1 : Math.max(1, threads);
}

/** Ranges inside which a checkpoint's tree ends or a proof needs a node: their leaves are needed one by one. */
export function leafwiseRanges(plan: VerifyPlan): Set<number> {
  const leafwise = new Set([...plan.wanted].map((s) => Math.floor((s - 1) / RANGE_LINES)));
  for (const at of plan.recorder.positionsBelow(RANGE_LEVEL + 1)) leafwise.add(Math.floor(at / RANGE_LINES));
  return leafwise;
}

/**
 * Splits the log into ranges of RANGE_LINES lines (the last one shorter, to the file's end);
 * `leafwise(k)` says whether range k's leaf hashes are needed one by one.
 */
function splitAtLines(file: string, size: number, leafwise: (k: number) => boolean): RangeTask[] {
  const tasks: RangeTask[] = [];
  const chunk = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, 'r');
  let start = 0;
  let lines = 0;
  const cut = (end: number, count: number): void => {
    const k = tasks.length;
    const leaves = leafwise(k) || count !== RANGE_LINES;
    tasks.push({ file, start, end, leaves, subtreeLeaves: leaves ? 0 : RANGE_LINES });
    start = end;
  };
  try {
    for (let pos = 0; pos < size;) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - pos), pos);
      if (n === 0) break;
      for (let nl = chunk.indexOf(0x0a); nl !== -1 && nl < n; nl = chunk.indexOf(0x0a, nl + 1)) {
        if (++lines === RANGE_LINES) {
          cut(pos + nl + 1, RANGE_LINES);
          lines = 0;
        }
      }
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
  if (start < size) cut(size, -1);
  return tasks;
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
    const at = this.range.size;
    if (!r.ok || r.firstSeq !== at || r.firstPrev !== this.lastHash) {
      this.broken = true;
      return;
    }
    if (r.subtree !== null) {
      // A whole subtree: no rotation inside it needs learning one leaf at a time (no checkpoint or proof ends inside it).
      for (const rot of r.rotations) learnRotation(rot.data, at + rot.index, this.plan.keys, this.findings);
      this.range.pushSubtree(RANGE_LEVEL, new Uint8Array(r.subtree));
      this.plan.recorder.atSize(this.range);
      if (this.plan.wanted.has(this.range.size)) this.rootAt.set(this.range.size, this.range.root());
      this.lastHash = r.lastHash;
      return;
    }
    const leaves = new Uint8Array(r.leaves);
    let next = 0;
    for (let i = 0; i < r.count; i++) {
      // Learnt where the serial scan learns it: before the rotation's own leaf.
      if (next < r.rotations.length && r.rotations[next]!.index === i) learnRotation(r.rotations[next++]!.data, at + i, this.plan.keys, this.findings);
      this.range.push(leaves.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
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
  const joiner = new Joiner(plan);
  const leafwise = leafwiseRanges(plan);
  try {
    const tasks = splitAtLines(logFile, size, (k) => leafwise.has(k));
    await runInOrder(
      workerFile,
      threads,
      tasks,
      (r: RangeOk | RangeBad) => joiner.add(r),
      () => joiner.broken,
    );
  } catch {
    joiner.broken = true;
  }
  // Anything wrong (or a log that changed while it was read): the serial verify finds and names it.
  if (joiner.broken) return verifyAudit(auditDir, trustedKeys);
  return finishVerify(plan, joiner.scan());
}
