// What a doctor run must leave behind: nothing. Tracks its temp folders and the agent's process
// group, removes them when a probe ends, and on SIGINT/SIGTERM kills the group, removes the
// folders and exits 130/143.
import { rmSync } from 'node:fs';

/**
 * A killed agent's last writes can race the removal (ENOTEMPTY): node retries with a linear
 * back-off, 50 ms more each time, about 2 s in all.
 */
const REMOVE_RETRIES = 8;

/** Removes a folder, retrying while a dying process still writes into it; never throws. */
function remove(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: REMOVE_RETRIES, retryDelay: 50 });
  } catch {
    // Left for the system's temp cleaner; doctor's report matters more than this folder.
  }
}

/** Exit status after a signal, as a shell reports it (128 + the signal number). */
const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 };

/** The temp folders and agent process groups of a doctor run, cleaned on exit or signal. */
export class DoctorCleanup {
  private readonly roots = new Set<string>();
  private readonly groups = new Set<number>();
  private readonly handlers: [NodeJS.Signals, () => void][] = [];

  /** Installs the signal handlers; `dispose` removes them. */
  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const handler = (): void => this.onSignal(signal);
      process.on(signal, handler);
      this.handlers.push([signal, handler]);
    }
  }

  addRoot(dir: string): void {
    this.roots.add(dir);
  }

  addGroup(pid: number): void {
    this.groups.add(pid);
  }

  /** Kills what is left of the agent's group and removes `dir`. */
  release(dir: string): void {
    this.killGroups();
    remove(dir);
    this.roots.delete(dir);
  }

  dispose(): void {
    for (const [signal, handler] of this.handlers) process.off(signal, handler);
  }

  private killGroups(): void {
    for (const pid of this.groups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.groups.clear();
  }

  private onSignal(signal: 'SIGINT' | 'SIGTERM'): void {
    this.killGroups();
    for (const dir of this.roots) remove(dir);
    process.stderr.write(`gatehouse doctor: interrupted (${signal}); the agent was stopped and its temp folders removed\n`);
    process.exit(SIGNAL_EXIT[signal]);
  }
}
