// Runs evidence producers (the task's required checks, e.g. `npm test`) as child
// processes: argv without a shell, own process group, bounded time, capped output.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { ProducerSpec } from '../core/policy.js';

/** How one producer run ended. */
export type ProducerStatus = 'passed' | 'failed' | 'timed_out' | 'spawn_error' | 'cancelled';

/** The outcome of one producer run; never thrown, always returned. */
export interface ProducerResult {
  name: string;
  required: boolean;
  status: ProducerStatus;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  /** stdout and stderr interleaved in arrival order, utf8; only the last `outputCapBytes` bytes. */
  output: string;
  /** Total bytes the producer wrote, kept or not. */
  output_bytes: number;
  truncated: boolean;
}

/** Options shared by {@link runProducer} and {@link runProducers}. */
export interface RunProducersOptions {
  cwd: string;
  /** Run one after another instead of all at once. */
  sequential?: boolean;
  /** Bytes of output kept per producer (the tail). */
  outputCapBytes?: number;
  /** Environment of the child; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** Aborting kills every running producer's process group (status `cancelled`). */
  signal?: AbortSignal;
}

/** Default output kept per producer: the tail of a failing test run fits with room to spare, and N producers stay cheap. */
export const DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024;
/** Time between SIGTERM and SIGKILL to the group: enough to flush and exit, short enough that everything is dead within 1 s of a deadline. */
export const KILL_GRACE_MS = 300;
/** How long to wait for stdio to close after the child exited: a grandchild that escaped the group may hold the pipes forever. */
export const STDIO_DRAIN_MS = 1000;
/** Default characters of output in a block reason: enough for the failing assertion, short enough for an agent's context. */
export const FAILURE_TAIL_CHARS = 2000;
/** setTimeout fires at once for delays above this (2^31 - 1 ms, ~24.8 days), so longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Compact the chunk list once this many chunks were dropped from its front, so a chatty producer costs O(1) per chunk. */
const COMPACT_AFTER_CHUNKS = 1024;

/** Keeps the last `cap` bytes of a byte stream as a list of chunks trimmed from the front. */
class OutputTail {
  private chunks: Buffer[] = [];
  private head = 0;
  private kept = 0;
  total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept > this.cap) {
      const first = this.chunks[this.head] as Buffer;
      const excess = this.kept - this.cap;
      if (first.length <= excess) {
        this.head++;
        this.kept -= first.length;
      } else {
        // Copy so the dropped part of a large chunk is not kept alive.
        this.chunks[this.head] = Buffer.from(first.subarray(excess));
        this.kept -= excess;
      }
    }
    if (this.head >= COMPACT_AFTER_CHUNKS) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  text(): string {
    let buf = Buffer.concat(this.chunks.slice(this.head), this.kept);
    // A cut can land inside a multi-byte character: drop its orphaned continuation bytes.
    if (this.truncated) {
      let skip = 0;
      while (skip < 3 && skip < buf.length && ((buf[skip] as number) & 0xc0) === 0x80) skip++;
      buf = buf.subarray(skip);
    }
    return buf.toString('utf8');
  }
}

/** Signals a whole process group; a group that is already gone is not an error. */
function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: every member has exited.
  }
}

/**
 * Runs one producer to completion and reports how it ended; never throws.
 * @example const r = await runProducer({name: 'test', kind: 'check', command: ['npm', 'test'], required: true, timeout_s: 600}, {cwd})
 */
export function runProducer(spec: ProducerSpec, opts: RunProducersOptions): Promise<ProducerResult> {
  const started = Date.now();
  const out = new OutputTail(opts.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES);
  const result = (status: ProducerStatus, exit_code: number | null = null, signal: string | null = null): ProducerResult => ({
    name: spec.name,
    required: spec.required,
    status,
    exit_code,
    signal,
    duration_ms: Date.now() - started,
    output: out.text(),
    output_bytes: out.total,
    truncated: out.truncated,
  });
  const spawnError = (message: string): Promise<ProducerResult> => {
    out.push(Buffer.from(`${message}\n`));
    return Promise.resolve(result('spawn_error'));
  };

  if (opts.signal?.aborted) return Promise.resolve(result('cancelled'));
  const [cmd, ...args] = spec.command;
  if (cmd === undefined || cmd === '') return spawnError(`producer "${spec.name}" has an empty command`);
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      shell: false,
      detached: true, // own process group, so a kill reaches grandchildren too
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    // Invalid arguments (e.g. a NUL byte in argv) throw synchronously.
    return spawnError(err instanceof Error ? err.message : String(err));
  }

  return new Promise<ProducerResult>((resolve) => {
    const streams = [child.stdout, child.stderr].filter((s) => s !== null);
    let open = streams.length;
    let exit: { code: number | null; signal: string | null } | null = null;
    let ending: 'timed_out' | 'cancelled' | null = null;
    let done = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const finish = (res: ProducerResult): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      clearTimeout(drainTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      for (const s of streams) s.destroy();
      resolve(res);
    };
    const maybeFinish = (): void => {
      if (exit === null || open > 0) return;
      const status = ending ?? (exit.code === 0 ? 'passed' : 'failed');
      finish(result(status, exit.code, exit.signal));
    };
    const stop = (why: 'timed_out' | 'cancelled'): void => {
      if (ending !== null || exit !== null || child.pid === undefined) return;
      ending = why;
      const pid = child.pid;
      killGroup(pid, 'SIGTERM');
      graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    function onAbort(): void {
      stop('cancelled');
    }

    const deadline = setTimeout(() => stop('timed_out'), Math.min(Math.max(spec.timeout_s, 0) * 1000, MAX_TIMER_MS));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    for (const s of streams) {
      // Always drain, whatever the cap: a full pipe would block the child forever.
      s.on('data', (chunk: Buffer) => out.push(chunk));
      s.on('error', () => {
        // A read error ends that stream; its 'close' follows.
      });
      s.once('close', () => {
        open--;
        maybeFinish();
      });
    }
    child.on('error', (err) => {
      // Without a pid the process never started (ENOENT, EACCES); no 'exit' will follow.
      if (child.pid !== undefined) return;
      out.push(Buffer.from(`${err.message}\n`));
      finish(result('spawn_error'));
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // Whatever the leader left behind in its group dies with it. The group id stays
      // reserved while any member lives, and Linux hands out pids cyclically, so this
      // cannot hit an unrelated process.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      drainTimer = setTimeout(() => {
        open = 0;
        maybeFinish();
      }, STDIO_DRAIN_MS);
      maybeFinish();
    });
  });
}

/**
 * Runs producers concurrently (or one by one with `sequential`); results are in spec order.
 * @example const results = await runProducers(policy.producers, {cwd: policy.worktree, sequential: policy.sequential})
 */
export async function runProducers(specs: ProducerSpec[], opts: RunProducersOptions): Promise<ProducerResult[]> {
  if (!opts.sequential) return Promise.all(specs.map((spec) => runProducer(spec, opts)));
  const results: ProducerResult[] = [];
  for (const spec of specs) results.push(await runProducer(spec, opts));
  return results;
}

/**
 * The end of a producer's output, trimmed, at most `maxChars` characters, for a block reason.
 * @example `tests failed:\n${failureTail(result)}`
 */
export function failureTail(result: ProducerResult, maxChars = FAILURE_TAIL_CHARS): string {
  const text = result.output.trim();
  if (text.length <= maxChars) return text;
  // One character goes to the '…' that marks the cut, so the result fits in maxChars.
  let start = text.length - Math.max(maxChars - 1, 0);
  // Do not start on the second half of a surrogate pair.
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++;
  return `…${text.slice(start).trimStart()}`;
}
