// The scope check's own walk of a folder: readdir + lstat, never following a symlink,
// byte-exact for names that are not valid UTF-8, yielding to the event loop as it goes.
import { readdirSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { checkDeadline, type FsPath } from './scope-hash.js';
import { lstatOrNull } from './small-file.js';

/**
 * Directory entries handled between yields to the event loop: about 10 ms of blocking
 * work, so a server in the same process keeps answering during a long walk.
 */
export const ITEMS_PER_TURN = 500;

/** One entry met by the walk; `rel` uses `/` and is relative to the walk's root. */
export interface WalkEntry {
  rel: string;
  /** The `rel` of the folder it is in (`''` for the root). */
  parent: string;
  name: string;
  abs: FsPath;
  st: BigIntStats;
  /** `statKey(st)` when the walk already has it (the watched walk keeps it with the entry). */
  key?: string;
}

/**
 * Called for every entry below the root, parents before children, names in order. For a
 * directory, returning true walks into it. May return a promise (then it is awaited).
 */
export type Visit = (e: WalkEntry) => boolean | Promise<boolean>;

/** Called for a directory whose entries cannot be listed (no permission). */
export type OnUnreadable = (rel: string, abs: FsPath, st: BigIntStats) => void | Promise<void>;

/**
 * The stat fields that together say "unchanged" without reading the file: size, mtime
 * and ctime in nanoseconds, inode and mode (octal). ctime cannot be set from user space,
 * so a rewrite whose mtime was put back still shows.
 */
export function statKey(st: BigIntStats): string {
  return `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}:${st.mode.toString(8)}`;
}

/**
 * How much older than the moment a file is read its ctime must be for what was read to be
 * kept against its stat key (the warm scope cache, the kept baseline). The kernel stamps
 * ctime from a clock that ticks coarsely (a jiffy, up to 10 ms), so a rewrite in the same
 * tick as the read could keep the stat key: nothing read from a file changed that recently
 * is kept (git's "racily clean" rule). 2 s covers the tick and the small steps NTP makes;
 * what is not kept only costs reading that file again next time.
 */
export const RACY_MARGIN_MS = 2000;

/** The mode (type and permission bits) recorded in a {@link statKey}. */
export function modeOfKey(key: string): string {
  return key.slice(key.lastIndexOf(':') + 1);
}

/**
 * A path component as text: itself when it is valid UTF-8, otherwise its bytes with every
 * byte of 0x80 and above written `\xHH`, so two different names never read the same.
 */
export function nameOf(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(bytes)) return text;
  let out = '';
  for (const b of bytes) out += b < 0x80 ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return out;
}

/** A `/`-separated path from git, component by component as {@link nameOf} reads names. */
export function pathOf(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(bytes)) return text;
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x2f) {
      parts.push(nameOf(bytes.subarray(start, i)));
      start = i + 1;
    }
  }
  return parts.join('/');
}

/**
 * Walks everything below `root` (the root itself is not visited). A directory that
 * cannot be listed goes to `onUnreadable` and is not entered. Checks `deadline` between
 * entries.
 */
export async function walk(root: string, visit: Visit, onUnreadable: OnUnreadable, deadline?: number): Promise<void> {
  const stack: { rel: string; abs: FsPath }[] = [{ rel: '', abs: root }];
  let sinceTurn = 0;
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    const listed = list(dir.abs);
    if (listed === null) {
      const st = lstatOrNull(dir.abs);
      if (st !== null && dir.rel !== '') await onUnreadable(dir.rel, dir.abs, st);
      continue;
    }
    const into: { rel: string; abs: FsPath }[] = [];
    for (const child of listed) {
      checkDeadline(deadline);
      const rel = dir.rel === '' ? child.name : `${dir.rel}/${child.name}`;
      const abs = childPath(dir.abs, child);
      const st = lstatOrNull(abs); // null: removed while we walked
      if (st === null) continue;
      const r = visit({ rel, parent: dir.rel, name: child.name, abs, st });
      const descend = typeof r === 'boolean' ? r : await r;
      if (descend && st.isDirectory()) into.push({ rel, abs });
    }
    for (let i = into.length - 1; i >= 0; i--) stack.push(into[i]!); // first subfolder on top
    sinceTurn += listed.length;
    if (sinceTurn >= ITEMS_PER_TURN) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
}

export type Child = { name: string; bytes: Buffer | null };

/** Entries of a folder sorted by name; null when it cannot be listed. */
export function list(abs: FsPath): Child[] | null {
  try {
    if (typeof abs === 'string') {
      const names = readdirSync(abs);
      // A name that is not valid UTF-8 reads back with U+FFFD and would not lstat: such a
      // folder is listed again as bytes, so a file so named can neither hide nor break the walk.
      if (!names.some((n) => n.includes('\uFFFD'))) return sorted(names.map((name) => ({ name, bytes: null })));
    }
    return sorted(
      readdirSync(abs, { encoding: 'buffer' }).map((bytes) => {
        const name = nameOf(bytes);
        const exact = typeof abs === 'string' && Buffer.from(name, 'utf8').equals(bytes);
        return { name, bytes: exact ? null : bytes };
      }),
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    if (code === 'EACCES' || code === 'EPERM') return null;
    throw err;
  }
}

function sorted(children: Child[]): Child[] {
  return children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The path of `child` in the folder at `dir`: bytes when either is not valid UTF-8. */
export function childPath(dir: FsPath, child: Child): FsPath {
  if (child.bytes === null && typeof dir === 'string') return `${dir}/${child.name}`;
  const dirBytes = typeof dir === 'string' ? Buffer.from(dir, 'utf8') : dir;
  return Buffer.concat([dirBytes, Buffer.from('/'), child.bytes ?? Buffer.from(child.name, 'utf8')]);
}
