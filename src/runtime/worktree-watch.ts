// What changed in a worktree since the last Stop, read from Linux inotify by a long-lived host,
// so that its Stop lstats only the entries the kernel named instead of every entry (scope-walk-watched.ts).
import { closeSync, lstatSync, readSync, realpathSync } from 'node:fs';
import {
  ATTRIB,
  CLOSE_NOWRITE,
  CLOSE_WRITE,
  CREATE,
  DELETE,
  DELETE_SELF,
  DONT_FOLLOW,
  ENOSPC,
  giveBackWatches,
  IGNORED,
  ISDIR,
  MODIFY,
  MOVE_SELF,
  MOVED_FROM,
  MOVED_TO,
  OPEN,
  Q_OVERFLOW,
  takeWatch,
  type Inotify,
} from './inotify.js';
import { localFs, mountsAround } from './local-fs.js';
import { openFiles } from './proc-open-files.js';
import type { FsPath } from './scope-hash.js';
import { nameOf, type WalkEntry } from './scope-walk.js';

/** Every entry, from before its lstat (its type is not known yet). OPEN and the CLOSEs keep count of open descriptions: a shared writable mapping writes with no event, and holds its file open until unmapped. */
const ENTRY_MASK = MODIFY | ATTRIB | CLOSE_WRITE | CLOSE_NOWRITE | OPEN | DELETE_SELF | MOVE_SELF | DONT_FOLLOW;
/** A folder, once its lstat says so: names coming and going, and its own moves; its files' contents come from their own watches (a hard link elsewhere writes with no event in the folder). */
const DIR_MASK = CREATE | DELETE | MOVED_FROM | MOVED_TO | ATTRIB | DELETE_SELF | MOVE_SELF | DONT_FOLLOW;
/** Bytes read from the descriptor at once: room for about 2,000 events. */
const READ_BYTES = 64 * 1024;
/** How often a host drains the kernel's queue between Stops (it holds 16,384 events by default; past that it overflows and the next Stop walks everything). */
const DRAIN_EVERY_MS = 50;

/** What one Stop's walk must read again: entries to lstat, folders to list; `full`: nothing is kept (the first walk since a reset). */
export interface WalkPlan {
  dirty: Set<string>;
  relist: Set<string>;
  full: boolean;
}

interface Watched {
  rels: string[];
  dir: boolean;
}

/**
 * One session's worktree under inotify: a watch on every entry the walk met, the listings it
 * read, and what the kernel has said since. Sound only with {@link WorktreeWatch.begin}'s
 * rules: an entry is watched before it is lstat'ed, anything named by an event (or still open,
 * or unwatchable) is read again, and an overflow or a lost watch throws every listing away.
 */
export class WorktreeWatch {
  /** Entries watched and lstat'ed, and full walks begun (after a reset), over its life: for tests and diagnostics. */
  read = 0;
  fullWalks = 0;
  private fd = -1;
  private disabled = false;
  private readonly buf = Buffer.allocUnsafe(READ_BYTES);
  private byWd = new Map<number, Watched>();
  private opens = new Map<number, number>();
  private dirty = new Set<string>();
  private relist = new Set<string>();
  /** Entries read again at every walk: their watch failed (until one succeeds). */
  private unwatched = new Set<string>();
  /** Entries read again at every walk until a reset: on another filesystem than the root's, or held open from before the watch (proc-open-files.ts). */
  private always = new Set<string>();
  private watchedDirs = new Set<string>();
  /** The root's device: an entry on another one (a mount inside the worktree) is never trusted to the watch. */
  private dev: bigint | null = null;
  /** The root's real path, and the mounts around it at the last reset: a mount since raises no event, so a change there is a reset. */
  private real = '';
  private mounts = '';
  private listings = new Map<string, WalkEntry[]>();
  /** True from a reset until the walk after it ends. */
  private full = true;
  private broken = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly inotify: Inotify,
    readonly root: string,
  ) {}

  /** Whether it still watches (false after the kernel refused watches: every walk is then a full one). */
  get active(): boolean {
    return !this.disabled;
  }

  /**
   * Reads the kernel's events and says what this walk must read again; clears every listing
   * (a full walk) after an overflow or on first use. Null when the watch is off for good.
   */
  begin(): WalkPlan | null {
    if (this.disabled) return null;
    this.drain();
    if (this.fd >= 0 && mountsAround(this.real) !== this.mounts) this.broken = true;
    if (this.fd < 0 || this.broken) this.reset();
    if (this.disabled) return null;
    const plan = { dirty: this.dirty, relist: this.relist, full: this.full };
    this.dirty = new Set();
    this.relist = new Set();
    for (const rel of this.unwatched) plan.dirty.add(rel);
    for (const rel of this.always) plan.dirty.add(rel);
    for (const [wd, n] of this.opens) if (n > 0) for (const rel of this.byWd.get(wd)?.rels ?? []) plan.dirty.add(rel);
    return plan;
  }

  /** The listing the last walk stored for folder `rel`, if no event has touched it since. */
  listing(rel: string): WalkEntry[] | undefined {
    return this.listings.get(rel);
  }

  /** Keeps folder `rel`'s listing; only under a watched folder whose parent's listing is kept, so a dropped folder takes its whole subtree with it. */
  store(rel: string, parent: string | null, entries: WalkEntry[]): void {
    if (this.disabled || !this.watchedDirs.has(rel)) return;
    if (parent !== null && !this.listings.has(parent)) return;
    this.listings.set(rel, entries);
  }

  /** Watches the entry at `abs` (before its lstat); a failure reads it again at every walk. */
  watch(rel: string, abs: FsPath): void {
    this.read++;
    this.add(rel, abs, ENTRY_MASK, false);
  }

  /** Narrows a folder's watch to {@link DIR_MASK} once its lstat says it is one. */
  watchDir(rel: string, abs: FsPath): void {
    this.add(rel, abs, DIR_MASK, true);
  }

  /** Whether the entry lstat'ed as `st` is on the root's filesystem; if not, it is read at every walk, and nothing under it is kept. */
  sameFs(rel: string, st: { dev: bigint }): boolean {
    if (st.dev === this.dev) return true;
    this.always.add(rel);
    return false;
  }

  /**
   * Ends a walk: after the first one since a reset, every file some process holds open or
   * mapped now, in any mode, is read at every walk from then on. A shared writable mapping
   * writes with no event and holds its file open until unmapped, so a file counts as open from
   * its OPEN event to its close (see begin). That count starts at the watch: a description from
   * before it is not counted, yet its close is, and would cancel one that was. So any file with
   * such a description still alive (found here) is never trusted to the count; one closed by now
   * raised its close after the watch, and can no longer write.
   */
  end(): void {
    if (!this.full || this.disabled) return;
    this.full = false;
    const held = openFiles(this.root);
    if (held.inodes.size === 0 && held.rels.size === 0) return;
    for (const entries of this.listings.values()) {
      for (const e of entries) {
        if (held.inodes.has(`${e.st.dev}:${e.st.ino}`) || held.rels.has(e.rel)) this.always.add(e.rel);
      }
    }
  }

  /** Gives back what a walk that stopped part-way had to read, for the next walk. */
  putBack(plan: WalkPlan): void {
    for (const rel of plan.dirty) this.dirty.add(rel);
    for (const rel of plan.relist) this.relist.add(rel);
  }

  /** Drains between Stops every {@link DRAIN_EVERY_MS}, so that the kernel's queue does not overflow. */
  keepDraining(): void {
    this.timer ??= setInterval(() => this.drain(), DRAIN_EVERY_MS).unref();
  }

  /** Stops watching and frees the descriptor. */
  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.disabled = true;
    this.closeFd();
  }

  private add(rel: string, abs: FsPath, mask: number, dir: boolean): void {
    if (this.disabled || this.fd < 0) return;
    const path = typeof abs === 'string' ? Buffer.from(`${abs}\0`, 'utf8') : Buffer.concat([abs, Buffer.alloc(1)]);
    const wd = this.inotify.add(this.fd, path, mask);
    if (wd === -ENOSPC) return this.close(); // out of watches: full walks from now on, and the watches given back
    if (wd < 0) {
      this.unwatched.add(rel);
      if (dir) this.watchedDirs.delete(rel);
      return;
    }
    if (!dir) this.unwatched.delete(rel);
    const w = this.byWd.get(wd);
    if (w === undefined) {
      this.byWd.set(wd, { rels: [rel], dir });
      if (!takeWatch()) return this.close(); // past its share of the user's watches: full walks from now on
    } else {
      if (!w.rels.includes(rel)) w.rels.push(rel);
      w.dir ||= dir;
    }
    if (dir) this.watchedDirs.add(rel);
  }

  /** Reads every queued event (non-blocking). */
  private drain(): void {
    if (this.fd < 0) return;
    for (;;) {
      let n: number;
      try {
        n = readSync(this.fd, this.buf, 0, READ_BYTES, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') this.broken = true;
        return;
      }
      if (n <= 0) return;
      for (let off = 0; off + 16 <= n;) {
        const wd = this.buf.readInt32LE(off);
        const mask = this.buf.readUInt32LE(off + 4);
        const len = this.buf.readUInt32LE(off + 12);
        const raw = this.buf.subarray(off + 16, off + 16 + len);
        off += 16 + len;
        this.event(wd, mask, raw);
      }
    }
  }

  private event(wd: number, mask: number, raw: Buffer): void {
    if (mask & Q_OVERFLOW) return void (this.broken = true);
    const w = this.byWd.get(wd);
    if (w === undefined) return;
    if (mask & IGNORED) {
      // The inode is gone or its watch was dropped: what it covered is read again.
      this.byWd.delete(wd);
      this.opens.delete(wd);
      giveBackWatches(1);
      for (const rel of w.rels) this.lost(rel, w.dir);
      return;
    }
    const end = raw.indexOf(0);
    const name = raw.length === 0 ? '' : nameOf(end === -1 ? raw : raw.subarray(0, end));
    if (name !== '') {
      // An event on a folder's entry: a name came, went or changed its attributes.
      for (const rel of w.rels) {
        const child = rel === '' ? name : `${rel}/${name}`;
        this.dirty.add(child);
        if (mask & (CREATE | DELETE | MOVED_FROM | MOVED_TO)) {
          this.relist.add(rel);
          if (mask & ISDIR) this.dropTree(child);
        }
      }
      return;
    }
    if (mask & OPEN) this.opens.set(wd, (this.opens.get(wd) ?? 0) + 1);
    if (mask & (CLOSE_WRITE | CLOSE_NOWRITE)) this.opens.set(wd, Math.max(0, (this.opens.get(wd) ?? 0) - 1));
    if (mask & (MODIFY | ATTRIB | CLOSE_WRITE | DELETE_SELF | MOVE_SELF)) for (const rel of w.rels) this.dirty.add(rel);
    if (mask & (DELETE_SELF | MOVE_SELF)) for (const rel of w.rels) this.lost(rel, w.dir);
  }

  /** An entry whose watch no longer says where it is: it and its folder are read again. */
  private lost(rel: string, dir: boolean): void {
    if (rel === '') return void (this.broken = true);
    this.dirty.add(rel);
    this.relist.add(parentOf(rel));
    if (dir) this.dropTree(rel);
  }

  /** Forgets the stored listings of folder `rel` and everything under it. */
  private dropTree(rel: string): void {
    if (!this.listings.has(rel)) return; // nothing below an unkept folder is kept (see store)
    const prefix = `${rel}/`;
    for (const key of this.listings.keys()) if (key === rel || key.startsWith(prefix)) this.listings.delete(key);
  }

  /** A new descriptor with no watches, no listings: the next walk reads everything. */
  private reset(): void {
    this.closeFd();
    this.opens = new Map();
    this.dirty = new Set();
    this.relist = new Set();
    this.unwatched = new Set();
    this.always = new Set();
    this.listings = new Map();
    this.watchedDirs = new Set();
    this.broken = false;
    // Off for good on a filesystem whose changes may come from elsewhere (NFS, FUSE): full walks.
    if (!localFs(this.root)) return this.close();
    try {
      this.dev = lstatSync(this.root, { bigint: true }).dev;
      this.real = realpathSync(this.root);
      this.mounts = mountsAround(this.real);
    } catch {
      return this.close();
    }
    const fd = this.inotify.init();
    if (fd < 0) return this.close();
    this.fd = fd;
    this.full = true;
    this.fullWalks++;
  }

  private closeFd(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    giveBackWatches(this.byWd.size); // every watch it holds, one per wd
    this.byWd = new Map();
  }
}

function parentOf(rel: string): string {
  const cut = rel.lastIndexOf('/');
  return cut === -1 ? '' : rel.slice(0, cut);
}
