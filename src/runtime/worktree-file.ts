// Reads one file of a worktree the agent can write, for a person to look at (an approval card, a
// session's diff): never through a symbolic link anywhere on the way, never a FIFO, never more
// than the caller's cap, and never a file that turns out to be outside the worktree once opened.
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isInside } from '../core/path-inside.js';

/** The file's bytes, that it is not there, or why it is not shown. */
export type WorktreeFile = { kind: 'bytes'; data: Buffer } | { kind: 'missing' } | { kind: 'omitted'; why: string };

const omitted = (why: string): WorktreeFile => ({ kind: 'omitted', why });

/** Whether an open file's path, as the kernel knows it, is inside `root` (true where /proc cannot say). */
function openedInside(root: string, fd: number): boolean {
  try {
    return isInside(root, readlinkSync(`/proc/self/fd/${fd}`));
  } catch {
    return true;
  }
}

/**
 * The file at `rel` under `root` (a real path) as it is now: its folder must resolve inside the
 * worktree, the file itself is opened with O_NOFOLLOW and O_NONBLOCK, and where /proc tells, the
 * opened file must still be inside.
 * @example readWorktreeFile('/w', 'src/a.ts', 1024 * 1024) // { kind: 'bytes', data: <Buffer …> }
 */
export function readWorktreeFile(root: string, rel: string, cap: number): WorktreeFile {
  const abs = join(root, rel);
  let folder: string;
  try {
    folder = realpathSync(dirname(abs));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'missing' } : omitted('its folder cannot be read now');
  }
  if (!isInside(root, folder)) return omitted('it is reached through a symbolic link that leaves the worktree: not followed');
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return omitted(`a symbolic link to ${readlinkSync(abs, 'utf8')}: not followed`);
    if (!st.isFile()) return omitted('not a regular file');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'missing' } : omitted('it cannot be read now');
  }
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return omitted('it cannot be opened now (it may have been replaced by a symbolic link)');
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return omitted('not a regular file');
    if (!openedInside(root, fd)) return omitted('it moved out of the worktree while being read: not shown');
    if (st.size > cap) return omitted(`${st.size} bytes, over the ${cap}-byte limit for showing a file`);
    const data = Buffer.alloc(st.size);
    let got = 0;
    while (got < data.length) {
      const n = readSync(fd, data, got, data.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return { kind: 'bytes', data: data.subarray(0, got) };
  } finally {
    closeSync(fd);
  }
}
