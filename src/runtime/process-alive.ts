// Whether a process that holds something (a lock, a pending approval) still exists and can
// still release it: a vanished pid or a zombie (killed, not yet reaped) cannot.
import { existsSync, readFileSync } from 'node:fs';

/**
 * True if `pid` names a running process. A pid the system has already handed to a new
 * process looks alive; such a request waits for its expiry instead of being swept early.
 * @example isProcessAlive(process.pid) // true
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed hook whose parent has not reaped it still answers signal 0; Linux shows it
  // as state Z in /proc. Elsewhere (no /proc) signal 0 is all we have.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return stat.slice(close + 2, close + 3) !== 'Z';
  } catch (err) {
    // Gone between the two looks, if this system has a /proc at all.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync('/proc/self');
  }
}
