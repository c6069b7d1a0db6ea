// Runs one shell command for a stop hook: /bin/sh -c in its own process group, a JSON
// payload on stdin, a deadline, cancellation, and capped stdout/stderr; never throws.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { superviseChild } from '../supervised-child.js';

/** POSIX sh, not the user's login shell: the same command means the same thing for every operator. */
const SHELL_PATH = '/bin/sh';
/** Bytes kept of each of stdout and stderr (the head): plenty for a reason, small enough for an audit record. */
export const STREAM_CAP_BYTES = 64 * 1024;

/** What to run and how. */
export interface CommandSpec {
  /** Shell text, run as `/bin/sh -c <command>`. */
  command: string;
  /** Written to the child's stdin, which is then closed. */
  stdin: string;
  timeoutMs: number;
  cwd: string;
  /** Environment of the child; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** Aborting kills the child's whole process group. */
  signal?: AbortSignal;
  /** Rewrites the argv before it runs: a sandboxed session runs it inside the sandbox. */
  wrap?: (argv: string[]) => string[];
}

/** How one command run ended; every field is always present. */
export interface CommandRun {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  cancelled: boolean;
  /** Why the process never started (spawn failure), else null. */
  spawn_error: string | null;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /** Bytes written to each stream, kept or not. */
  stdout_bytes: number;
  stderr_bytes: number;
  duration_ms: number;
}

/** Keeps the first `cap` bytes of a byte stream and counts the rest. */
class HeadCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept >= this.cap) return;
    // Copy a partial take so the dropped rest of a large chunk is not kept alive.
    const take = chunk.length <= this.cap - this.kept ? chunk : Buffer.from(chunk.subarray(0, this.cap - this.kept));
    this.chunks.push(take);
    this.kept += take.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  text(): string {
    const buf = Buffer.concat(this.chunks, this.kept);
    // A cut can land inside a multi-byte character; a streaming decode holds back that
    // incomplete tail instead of turning it into U+FFFD.
    return this.truncated ? new TextDecoder('utf-8').decode(buf, { stream: true }) : buf.toString('utf8');
  }
}

/**
 * Runs `spec.command` under /bin/sh to completion and reports how it ended; never throws.
 * On deadline or abort the whole group gets SIGTERM, then SIGKILL after a short grace.
 * @example const run = await runShellCommand({command: 'make check', stdin: '{}', timeoutMs: 30_000, cwd})
 */
export function runShellCommand(spec: CommandSpec): Promise<CommandRun> {
  const started = Date.now();
  const out = new HeadCapture(STREAM_CAP_BYTES);
  const err = new HeadCapture(STREAM_CAP_BYTES);
  let ending: 'timed_out' | 'cancelled' | null = null;
  const result = (exit_code: number | null, signal: string | null, spawn_error: string | null = null): CommandRun => ({
    exit_code,
    signal,
    timed_out: ending === 'timed_out',
    cancelled: ending === 'cancelled',
    spawn_error,
    stdout: out.text(),
    stderr: err.text(),
    stdout_truncated: out.truncated,
    stderr_truncated: err.truncated,
    stdout_bytes: out.total,
    stderr_bytes: err.total,
    duration_ms: Date.now() - started,
  });

  if (spec.signal?.aborted) {
    ending = 'cancelled';
    return Promise.resolve(result(null, null));
  }
  let child: ChildProcess;
  try {
    const [cmd, ...args] = (spec.wrap ?? ((a: string[]) => a))([SHELL_PATH, '-c', spec.command]) as [string, ...string[]];
    child = spawn(cmd, args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      shell: false,
      detached: true, // own process group, so a kill reaches grandchildren too
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    // Invalid arguments (e.g. a NUL byte in the command) throw synchronously.
    return Promise.resolve(result(null, null, e instanceof Error ? e.message : String(e)));
  }

  // A hook that never reads stdin exits with our write pending: EPIPE is expected, not an error.
  child.stdin?.on('error', () => {});
  child.stdin?.end(spec.stdin);
  const streams: (readonly [Readable, (chunk: Buffer) => void])[] = [];
  if (child.stdout) streams.push([child.stdout, (c) => out.push(c)]);
  if (child.stderr) streams.push([child.stderr, (c) => err.push(c)]);
  return superviseChild(child, { timeoutMs: spec.timeoutMs, signal: spec.signal, streams, onFinish: () => child.stdin?.destroy() }).then((o) => {
    ending = o.ending;
    return result(o.code, o.signal, o.spawnError);
  });
}
