// Files that some process can change without an inotify event: a shared writable mapping
// writes through page faults, which raise none. Such a mapping needs a read-write open, so the
// files held open read-write or mapped shared and writable are the ones to read at every Stop.
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';

/** Files some process holds open read-write or maps shared and writable: by device and inode, and by path under the root. */
export interface SilentWriters {
  inodes: Set<string>;
  paths: Set<string>;
}

/** fdinfo's `flags` (octal) access mode for read-write. */
const O_RDWR = 2;

/**
 * Reads every readable `/proc/<pid>/fd` and `/proc/<pid>/maps`. A process this user cannot
 * read (another user's, or behind hidepid) is not seen: it could not write the user's worktree
 * unless it was given write access to it. A descriptor in flight between processes (passed over
 * a socket, or held only in an io_uring table) is in no process's table, so it is not seen either.
 * @example silentWriters('/src/app').inodes.has(`${st.dev}:${st.ino}`)
 */
export function silentWriters(root: string): SilentWriters {
  const out: SilentWriters = { inodes: new Set(), paths: new Set() };
  const inRoot = (path: string): boolean => path === root || path.startsWith(`${root}/`);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  for (const pid of pids) {
    openReadWrite(pid, out, inRoot);
    mappedShared(pid, out, inRoot);
  }
  return out;
}

function openReadWrite(pid: string, out: SilentWriters, inRoot: (path: string) => boolean): void {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return;
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (!target.startsWith('/')) continue; // a pipe, socket or anonymous inode
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'latin1'))?.[1];
      if (flags === undefined || (parseInt(flags, 8) & 3) !== O_RDWR) continue;
      const st = statSync(`/proc/${pid}/fd/${fd}`, { bigint: true });
      if (!st.isFile()) continue;
      out.inodes.add(`${st.dev}:${st.ino}`);
      if (inRoot(target)) out.paths.add(target);
    } catch {
      // closed while we looked: it can no longer write
    }
  }
}

function mappedShared(pid: string, out: SilentWriters, inRoot: (path: string) => boolean): void {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/maps`, 'latin1');
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    // address perms offset dev inode path
    const f = line.split(/\s+/, 6);
    if (f.length < 5 || f[1]?.[1] !== 'w' || f[1]?.[3] !== 's') continue;
    const [major, minor] = (f[3] ?? '').split(':').map((h) => BigInt(`0x${h}`));
    if (major === undefined || minor === undefined) continue;
    out.inodes.add(`${encodeDev(major, minor)}:${f[4]}`);
    const slash = line.indexOf('/');
    if (slash !== -1 && inRoot(line.slice(slash))) out.paths.add(line.slice(slash));
  }
}

/** Linux's `makedev` as `st_dev` holds it. */
function encodeDev(major: bigint, minor: bigint): bigint {
  return (minor & 0xffn) | ((major & 0xfffn) << 8n) | ((minor & ~0xffn) << 12n) | ((major & ~0xfffn) << 32n);
}
