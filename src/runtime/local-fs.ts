// Which filesystems this kernel sees every change of: the ones whose timestamps come from its
// own clock and whose writes all pass through it (so inotify names them), and what is mounted
// around a path (a mount raises no inotify event).
import { readFileSync, statfsSync } from 'node:fs';

/**
 * Filesystem types (statfs `f_type`): ext2/3/4, xfs, btrfs, tmpfs, overlayfs, zfs, f2fs,
 * bcachefs. On any other (NFS, SMB, FUSE, 9p) a server stamps ctime with a clock that may lag
 * ours, and another machine's writes raise no inotify event here.
 */
const LOCAL_FS_TYPES = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0xca451a4e]);

/** Whether the filesystem holding `path` is one of {@link LOCAL_FS_TYPES}; false when it cannot be told. */
export function localFs(path: string): boolean {
  try {
    return LOCAL_FS_TYPES.has(statfsSync(path).type);
  } catch {
    return false;
  }
}

/**
 * The lines of this process's mount table (`/proc/self/mountinfo`) for mounts at, under or
 * above the real path `real`: a mount there changes what a path under it names, and raises no
 * inotify event. '' when the table cannot be read (then only events count).
 * @example mountsAround('/src/app') !== before  // something was mounted or unmounted there
 */
export function mountsAround(real: string): string {
  let table: string;
  try {
    table = readFileSync('/proc/self/mountinfo', 'latin1');
  } catch {
    return '';
  }
  // Mount points are written with space, tab, newline and backslash as octal escapes.
  const at = real.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
  return table
    .split('\n')
    .filter((line) => {
      const point = line.split(' ', 5)[4];
      return point !== undefined && (point === at || point.startsWith(`${at}/`) || point === '/' || at.startsWith(`${point}/`));
    })
    .join('\n');
}
