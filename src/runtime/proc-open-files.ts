// Files that some process holds open or mapped now. The worktree watch counts the opens it sees
// (a shared writable mapping writes with no event, and holds its file open until unmapped), but
// a close of a description opened before the watch cancels one it saw; so every file with a
// description from before the watch still alive is read at every Stop instead (worktree-watch.ts).
import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';

/** Files some process holds a descriptor or a mapping of: by device and inode, and by path relative to the root's real path. */
export interface OpenFiles {
  inodes: Set<string>;
  rels: Set<string>;
}

/**
 * Reads every readable `/proc/<pid>/fd` and `/proc/<pid>/maps`, in any access mode. A process
 * this user cannot read (another user's, or behind hidepid) is not seen: it could not write the
 * user's worktree unless it was given write access to it. A descriptor in flight between
 * processes (passed over a socket, or held only in an io_uring table) is in no process's table,
 * so it is not seen either.
 * @example openFiles('/src/app').inodes.has(`${st.dev}:${st.ino}`)
 */
export function openFiles(root: string): OpenFiles {
  const out: OpenFiles = { inodes: new Set(), rels: new Set() };
  let real: string;
  let pids: string[];
  try {
    real = realpathSync(root);
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  // Paths in /proc are real paths; the root's own is kept as ''.
  const relOf = (path: string): void => {
    if (path === real) out.rels.add('');
    else if (path.startsWith(`${real}/`)) out.rels.add(path.slice(real.length + 1));
  };
  for (const pid of pids) {
    descriptors(pid, out, relOf);
    mappings(pid, out, relOf);
  }
  return out;
}

function descriptors(pid: string, out: OpenFiles, relOf: (path: string) => void): void {
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
      const st = statSync(`/proc/${pid}/fd/${fd}`, { bigint: true });
      if (!st.isFile()) continue;
      out.inodes.add(`${st.dev}:${st.ino}`);
      relOf(target);
    } catch {
      // closed while we looked: its close raised an event, if the file is watched
    }
  }
}

function mappings(pid: string, out: OpenFiles, relOf: (path: string) => void): void {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/maps`, 'latin1');
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    // address perms offset dev inode path; inode 0: not a file
    const f = line.split(/\s+/, 6);
    if (f.length < 6 || f[4] === '0') continue;
    const [major, minor] = (f[3] ?? '').split(':').map((h) => BigInt(`0x${h}`));
    if (major === undefined || minor === undefined) continue;
    out.inodes.add(`${encodeDev(major, minor)}:${f[4]}`);
    const slash = line.indexOf('/');
    if (slash !== -1) relOf(line.slice(slash));
  }
}

/** Linux's `makedev` as `st_dev` holds it. */
function encodeDev(major: bigint, minor: bigint): bigint {
  return (minor & 0xffn) | ((major & 0xfffn) << 8n) | ((minor & ~0xffn) << 12n) | ((major & ~0xfffn) << 32n);
}
