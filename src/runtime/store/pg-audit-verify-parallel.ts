// The team verify on several cores: this thread reads the rows a page at a time (each page a
// whole Merkle subtree) and joins the pages' results in order, while worker threads check the
// pages. Any problem at all, and the caller verifies serially in the same snapshot instead, so a
// damaged log gets exactly the serial report.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { PoolClient } from 'pg';
import { GENESIS_HASH } from '../audit/record.js';
import { cutPoints, cutsWithin, Joiner, RANGE_LINES } from '../audit/verify-parallel.js';
import type { LogScan, VerifyPlan } from '../audit/verify.js';
import { runInOrder } from '../audit/worker-pool.js';
import { pageSelect, type TeamRangeResult, type TeamRangeTask } from './pg-audit-range.js';
import { copyPages, lastKey, PageBuffers } from './pg-copy-pages.js';

/** Below this many rows one thread is as fast: starting the workers costs about what they save. */
const PARALLEL_MIN_ROWS = 20_000;

/** Most worker threads used, whatever the core count: past this, the reading thread is the limit. */
const MAX_THREADS = 16;

/** Options for the team verify. */
export interface TeamVerifyOptions {
  /** Worker threads; default: the available cores (at most 16). 1 verifies on this thread. */
  threads?: number;
  /** The built worker (dist/team-verify-worker.js); default: the one beside this bundle. */
  workerFile?: string;
  /** Smallest log (rows, as the head row says) verified in parallel; default 20,000. */
  minRows?: number;
  /** Rows each COPY statement of the parallel scan reads; default 65,536 (16 pages). */
  statementRows?: number;
}

/** The worker shipped beside the bundle that holds this code. */
export function defaultTeamWorkerFile(): string {
  return fileURLToPath(new URL('./team-verify-worker.js', import.meta.url));
}

/** How many worker threads verify a team log of about `rows` rows. */
export function teamVerifyThreads(rows: number, threads = Math.min(availableParallelism(), MAX_THREADS), minRows = PARALLEL_MIN_ROWS): number {
  return rows < minRows ? 1 : Math.max(1, threads);
}

/** The file verify's joiner, plus each origin's chain across pages. */
class TeamJoiner {
  readonly inner: Joiner;
  private readonly origins = new Map<string, { seq: number; hash: string }>();

  constructor(plan: VerifyPlan) {
    this.inner = new Joiner(plan);
  }

  get broken(): boolean {
    return this.inner.broken;
  }

  add(r: TeamRangeResult): void {
    if (this.inner.broken) return;
    if (r.ok) {
      for (const o of r.origins) {
        const before = this.origins.get(o.key);
        if (o.firstSeq !== (before === undefined ? 0 : before.seq + 1) || o.firstPrev !== (before?.hash ?? GENESIS_HASH)) {
          this.inner.broken = true;
          return;
        }
        this.origins.set(o.key, { seq: o.lastSeq, hash: o.lastHash });
      }
    }
    this.inner.add(r);
  }
}

/**
 * Rows per COPY statement: a whole number of pages, few enough that one statement ends within
 * about a second of the workers' time, as the serial scan's keyset pages do. A team role's
 * `statement_timeout` then cuts no verify short, whatever the log's size.
 */
const STATEMENT_ROWS = 16 * RANGE_LINES;

/** The rows, a page of whole subtrees at a time, as worker tasks: raw, for the workers to decode and check. */
async function* pageTasks(c: PoolClient, plan: VerifyPlan, statementRows: number, buffers: PageBuffers): AsyncGenerator<TeamRangeTask> {
  const cuts = cutsWithin(cutPoints(plan));
  let first = 0;
  let after: string | null = '-1';
  while (after !== null) {
    let read = 0;
    let key: string | null = null;
    for await (const page of copyPages(c, pageSelect(after, statementRows), RANGE_LINES, buffers)) {
      // Read before the page moves to its worker. A key that is not a bigint is in a page the worker refuses.
      key = lastKey(page);
      yield { ...page, first, cuts: cuts(first, first + page.count) };
      first += page.count;
      read += page.count;
    }
    after = read === statementRows ? key : null;
  }
}

/**
 * Scans the rows on `threads` workers: what the serial scan finds on a clean log, or null when
 * anything is wrong (or a worker failed). A failure to read the rows is thrown, as the serial scan's is.
 */
export async function scanRowsParallel(c: PoolClient, plan: VerifyPlan, threads: number, workerFile: string, statementRows = STATEMENT_ROWS): Promise<LogScan | null> {
  const joiner = new TeamJoiner(plan);
  // Each page's buffer comes back with its result and takes a later page.
  const buffers = new PageBuffers();
  let readFailure: unknown = null;
  async function* tasks(): AsyncGenerator<TeamRangeTask> {
    try {
      yield* pageTasks(c, plan, statementRows, buffers);
    } catch (err) {
      readFailure = err;
      throw err;
    }
  }
  try {
    await runInOrder(
      workerFile,
      threads,
      tasks(),
      (r: TeamRangeResult) => {
        if (r.spare !== undefined) buffers.give(r.spare);
        joiner.add(r);
      },
      () => joiner.broken,
      { transfer: (t) => [t.bytes] },
    );
  } catch {
    if (readFailure !== null) throw readFailure;
    return null;
  }
  return joiner.broken ? null : joiner.inner.scan();
}
