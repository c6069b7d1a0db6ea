// Which filesystems this kernel sees every change of: the ones whose timestamps come from its
// own clock and whose writes all pass through it (so inotify names them).
import { statfsSync } from 'node:fs';

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
