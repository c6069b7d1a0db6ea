// Watches one child process that runs in its own process group: a deadline and an abort
// signal kill the whole group (SIGTERM, then SIGKILL), pipes are always drained, and the
// outcome is reported once, after stdio closed or a bounded drain after exit.
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** Time between SIGTERM and SIGKILL to the group: enough to flush and exit, short enough that everything is dead within 1 s of a deadline. */
const KILL_GRACE_MS = 300;
/** How long to wait for stdio to close after the child exited: a grandchild that escaped the group may hold the pipes forever. */
const STDIO_DRAIN_MS = 1000;
/** setTimeout fires at once for delays above this (2^31 - 1 ms, ~24.8 days), so longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How a supervised child ended. */
export interface ChildOutcome {
  code: number | null;
  signal: string | null;
  /** Set when Gatehouse ended it: its deadline passed, or the caller aborted. */
  ending: 'timed_out' | 'cancelled' | null;
  /** The process never started (ENOENT, EACCES); no exit code. */
  spawnError: string | null;
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
 * Supervises a child spawned with `detached: true`; `streams` pairs each output pipe with
 * where its chunks go. Never rejects.
 * @example const outcome = await superviseChild(child, { timeoutMs: 30_000, streams: [[child.stdout!, (c) => out.push(c)]] })
 */
export function superviseChild(
  child: ChildProcess,
  opts: { timeoutMs: number; signal?: AbortSignal | undefined; streams: readonly (readonly [Readable, (chunk: Buffer) => void])[]; onFinish?: () => void },
): Promise<ChildOutcome> {
  return new Promise<ChildOutcome>((resolve) => {
    let open = opts.streams.length;
    let exit: { code: number | null; signal: string | null } | null = null;
    let ending: ChildOutcome['ending'] = null;
    let done = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const finish = (outcome: ChildOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      clearTimeout(drainTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      opts.onFinish?.();
      for (const [s] of opts.streams) s.destroy();
      resolve(outcome);
    };
    const maybeFinish = (): void => {
      if (exit === null || open > 0) return;
      finish({ code: exit.code, signal: exit.signal, ending, spawnError: null });
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

    const deadline = setTimeout(() => stop('timed_out'), Math.min(Math.max(opts.timeoutMs, 0), MAX_TIMER_MS));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    for (const [s, sink] of opts.streams) {
      // Always drain, whatever the cap: a full pipe would block the child forever.
      s.on('data', sink);
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
      finish({ code: null, signal: null, ending: null, spawnError: err.message });
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
