// Starts a program inside a session's sandbox with inherited stdio and learns where it runs:
// bwrap puts a reaper at PID 1 of the sandbox and the program below it, and neither the
// outer bwrap nor the reaper passes signals on, so Ctrl-C is sent to the program itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { sandboxedArgv, type SandboxSpec } from '../../core/sandbox.js';

/** A program started in a sandbox. */
export interface SandboxedChild {
  /** The outer bwrap process: it exits with the program's status. */
  child: ChildProcess;
  /** Sends `signal` to the program (SIGKILL: to the sandbox's PID 1, which ends every process in it). */
  kill(signal: NodeJS.Signals): void;
  /** True once bwrap reported the program's exit: false after the outer bwrap ended means the sandbox never started the program. */
  ran(): boolean;
}

/** The sandbox's PID 1 as bwrap reports it on its status fd, once known. */
function reaperPid(text: string): number | null {
  const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The first child of `pid` (the program under the reaper), or null. */
function firstChild(pid: number): number | null {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}

/**
 * Runs `argv` in the sandbox in `cwd`. The outer bwrap gets a process group of its own, so a
 * terminal's Ctrl-C reaches Gatehouse (which relays it) and never kills bwrap alone, which
 * would leave the sandbox running unwatched.
 */
export function spawnSandboxed(spec: SandboxSpec, cwd: string, argv: readonly string[], env: NodeJS.ProcessEnv): SandboxedChild {
  const [bwrap, ...rest] = sandboxedArgv(spec, cwd, argv);
  const child = spawn(bwrap!, ['--json-status-fd', '3', ...rest], { cwd, env, stdio: ['inherit', 'inherit', 'inherit', 'pipe'], detached: true });
  let info = '';
  const fd3 = child.stdio[3];
  fd3?.on('data', (chunk: Buffer) => (info += chunk.toString('utf8')));
  fd3?.on('error', () => {});
  const send = (pid: number | null, signal: NodeJS.Signals): boolean => {
    if (pid === null) return false;
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  return {
    child,
    ran: () => /"exit-code"\s*:/.test(info),
    kill(signal) {
      const reaper = reaperPid(info);
      if (signal === 'SIGKILL' && send(reaper, 'SIGKILL')) return;
      if (reaper !== null && send(firstChild(reaper), signal)) return;
      // Not started yet (or already gone): the outer bwrap is all there is.
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
