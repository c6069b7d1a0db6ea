// Runs evidence producers (the task's required checks, e.g. `npm test`) as child
// processes: argv without a shell, own process group, bounded time, capped output.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { ProducerSpec } from '../core/policy.js';
import { superviseChild } from './supervised-child.js';

/** How one producer run ended. */
type ProducerStatus = 'passed' | 'failed' | 'timed_out' | 'spawn_error' | 'cancelled';

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
  /** Rewrites the argv before it runs: a sandboxed session runs it inside the sandbox. */
  wrap?: (argv: string[]) => string[];
}

/** Default output kept per producer: the tail of a failing test run fits with room to spare, and N producers stay cheap. */
const DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024;
/** Default characters of output in a block reason: enough for the failing assertion, short enough for an agent's context. */
const FAILURE_TAIL_CHARS = 2000;
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
  if (spec.command[0] === undefined || spec.command[0] === '') return spawnError(`producer "${spec.name}" has an empty command`);
  const [cmd, ...args] = (opts.wrap ?? ((a: string[]) => a))([...spec.command]) as [string, ...string[]];
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

  const streams = [child.stdout, child.stderr].filter((s) => s !== null).map((s) => [s, (chunk: Buffer) => out.push(chunk)] as const);
  return superviseChild(child, { timeoutMs: Math.max(spec.timeout_s, 0) * 1000, signal: opts.signal, streams }).then((o) => {
    if (o.spawnError !== null) {
      out.push(Buffer.from(`${o.spawnError}\n`));
      return result('spawn_error');
    }
    return result(o.ending ?? (o.code === 0 ? 'passed' : 'failed'), o.code, o.signal);
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
