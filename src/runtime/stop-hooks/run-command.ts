// Runs one shell command for a stop hook: /bin/sh -c in its own process group, a JSON
// payload on stdin, a deadline, cancellation, and capped stdout/stderr; never throws.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { KILL_GRACE_MS, STDIO_DRAIN_MS } from '../producers.js';

/** POSIX sh, not the user's login shell: the same command means the same thing for every operator. */
export const SHELL_PATH = '/bin/sh';
/** Bytes kept of each of stdout and stderr (the head): plenty for a reason, small enough for an audit record. */
export const STREAM_CAP_BYTES = 64 * 1024;
/** setTimeout fires at once for delays above this (2^31 - 1 ms, ~24.8 days), so longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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

/** Signals a whole process group; a group that is already gone is not an error. */
function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: every member has exited.
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
    child = spawn(SHELL_PATH, ['-c', spec.command], {
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

  return new Promise<CommandRun>((resolve) => {
    const pairs: [Readable, HeadCapture][] = [];
    if (child.stdout) pairs.push([child.stdout, out]);
    if (child.stderr) pairs.push([child.stderr, err]);
    const streams = pairs.map(([s]) => s);
    let open = streams.length;
    let exit: { code: number | null; signal: string | null } | null = null;
    let done = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const finish = (res: CommandRun): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      clearTimeout(drainTimer);
      spec.signal?.removeEventListener('abort', onAbort);
      child.stdin?.destroy();
      for (const s of streams) s.destroy();
      resolve(res);
    };
    const maybeFinish = (): void => {
      if (exit === null || open > 0) return;
      finish(result(exit.code, exit.signal));
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

    const deadline = setTimeout(() => stop('timed_out'), Math.min(Math.max(spec.timeoutMs, 0), MAX_TIMER_MS));
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    // A hook that never reads stdin exits with our write pending: EPIPE is expected, not an error.
    child.stdin?.on('error', () => {});
    child.stdin?.end(spec.stdin);

    for (const [s, capture] of pairs) {
      // Always drain, whatever the cap: a full pipe would block the child forever.
      s.on('data', (chunk: Buffer) => capture.push(chunk));
      s.on('error', () => {
        // A read error ends that stream; its 'close' follows.
      });
      s.once('close', () => {
        open--;
        maybeFinish();
      });
    }
    child.on('error', (e) => {
      // Without a pid the process never started (ENOENT for the shell or the cwd); no 'exit' follows.
      if (child.pid !== undefined) return;
      finish(result(null, null, e.message));
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // Whatever the leader left behind in its group dies with it. The group id stays
      // reserved while any member lives, so this cannot hit an unrelated process.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      // A grandchild that escaped the group may hold the pipes open for ever.
      drainTimer = setTimeout(() => {
        open = 0;
        maybeFinish();
      }, STDIO_DRAIN_MS);
      maybeFinish();
    });
  });
}
