// What a long-lived host (the warm supervisor's gate worker) keeps of one session's scope check
// between Stops: the baseline's lookup tables, and each hashed file's verdict under its stat key.
import type { BigIntStats } from 'node:fs';
import type { FileRecord } from './scope-baseline.js';
import { digestOf, type Digest, type FsPath } from './scope-hash.js';
import type { FrozenIgnore } from './scope-ignore.js';
import { localFs } from './local-fs.js';
import { RACY_MARGIN_MS, statKey } from './scope-walk.js';
import { lstatOrNull } from './small-file.js';
import type { Inotify } from './inotify.js';
import { WorktreeWatch } from './worktree-watch.js';
import { CompareJournal } from './scope-journal.js';
import { sessionOver } from './session-layout.js';

/** Sessions (baselines) whose caches one host keeps; the oldest used is dropped past this (and its watch closed). */
const MAX_CACHES = 16;

/** inotify, where this host watches worktrees between Stops (the gate worker sets it); null: every check walks the whole tree. */
let inotify: Inotify | null = null;

/**
 * Lets this process's scope caches watch their worktrees with `native`: only a host that lives
 * on between Stops, since a watch costs a walk with a watch per entry to set up.
 */
export function watchWorktrees(native: Inotify | null): void {
  inotify = native;
}

/** The baseline's records as the comparison looks them up, built once per baseline. */
export interface BaselineTables {
  /** Each recorded path's place in the records. */
  index: Map<string, number>;
  recordedDirs: Set<string>;
  /** The frozen ignore rules, compiled once; null outside git or when the repository ignores the worktree. */
  ignore: FrozenIgnore | null;
}

/** The verdict on one hashed file, and the stat key (with the device) it was read under. */
interface Held {
  key: string;
  differs: boolean;
}

/**
 * One session's scope cache. A kept verdict answers only while the file's lstat key (size,
 * mtime, ctime, inode, mode, device) is exactly the one it had before it was read, and only
 * when that ctime was already {@link RACY_MARGIN_MS} old: any write since then, however the
 * agent sets mtime back, moves ctime to a later time, so the key differs and the file is
 * hashed again. Nothing the agent can write (ignore files, git config, index) is consulted.
 */
export class ScopeCache {
  /** Verdicts answered from the cache, and files hashed, over the cache's life (for tests and diagnostics). */
  hits = 0;
  hashed = 0;
  private readonly held = new Map<string, Held>();
  private tablesOf: { files: FileRecord[]; tables: BaselineTables } | null = null;
  private watch: WorktreeWatch | null = null;
  /** What the last watched check did, for the next one to replay where nothing changed (used with the watch only). */
  readonly journal = new CompareJournal();

  constructor(private readonly racyMarginMs: number = RACY_MARGIN_MS) {}

  /** The lookup tables of `files`, built on first use. */
  tables(files: FileRecord[], build: () => BaselineTables): BaselineTables {
    if (this.tablesOf?.files !== files) this.tablesOf = { files, tables: build() };
    return this.tablesOf.tables;
  }

  /** The watch of the worktree at `root`, started on first use; null where this host does not watch or the kernel refused. */
  worktreeWatch(root: string): WorktreeWatch | null {
    if (inotify === null) return null;
    if (this.watch === null || this.watch.root !== root) {
      this.watch?.close();
      this.watch = new WorktreeWatch(inotify, root);
      this.watch.keepDraining();
    }
    return this.watch.active ? this.watch : null;
  }

  /** Stops the worktree watch, if any. */
  close(): void {
    this.watch?.close();
  }

  /**
   * What one walk of `root` that starts now asks of the cache: which ctimes are old enough to
   * keep a verdict, and which device is a local filesystem's, fixed for this walk alone.
   */
  walk(root: string): CachedDiffers {
    const keepBeforeNs = BigInt(Date.now() - this.racyMarginMs) * 1_000_000n;
    const st = lstatOrNull(root);
    const localDev = st !== null && localFs(root) ? st.dev : null;
    return (rel, abs, st, changed, deadline) => {
      const key = `${statKey(st)}:${st.dev}`;
      const kept = this.held.get(rel);
      if (kept !== undefined && kept.key === key) {
        this.hits++;
        return kept.differs;
      }
      this.hashed++;
      const keep = (d: Digest | null): boolean => {
        const verdict = changed(d);
        // An unreadable file is not kept: the next Stop reads it again, as a full check does.
        if (d !== null && st.dev === localDev && st.ctimeNs < keepBeforeNs) this.held.set(rel, { key, differs: verdict });
        else this.held.delete(rel);
        return verdict;
      };
      const d = digestOf(abs, st, null, deadline);
      return d instanceof Promise ? d.then(keep) : keep(d);
    };
  }
}

/**
 * Whether the file at `rel` (now `st`, its lstat from the walk) holds other bytes than at
 * baseline: from a kept verdict when its key is the one that verdict was read under, else by
 * hashing it. `changed` maps the new digest (null: unreadable) to the verdict.
 */
export type CachedDiffers = (rel: string, abs: FsPath, st: BigIntStats, changed: (d: Digest | null) => boolean, deadline?: number) => boolean | Promise<boolean>;

const caches = new Map<string, { dir: string; digest: string; cache: ScopeCache }>();

/**
 * The cache of one session's checks in this process: the same object while the baseline's
 * digest (`baseline_sha256`, which its bytes were verified against) and the options stay the
 * same; a new one when either changes. By digest, not by the parsed copy: a baseline younger
 * than the racy margin is parsed again at every Stop, and its cache must still live on.
 * @example changedSince(wt, baseline, { allow, cache: sessionScopeCache(sessionDir, policy.baseline_sha256, allow, exclude) })
 */
export function sessionScopeCache(sessionDir: string, digest: string, allow: string[], exclude: string[]): ScopeCache {
  const id = JSON.stringify([sessionDir, allow, exclude]);
  const found = caches.get(id);
  caches.delete(id);
  const entry = found !== undefined && found.digest === digest ? found : { dir: sessionDir, digest, cache: new ScopeCache() };
  if (found !== undefined && found !== entry) found.cache.close();
  caches.set(id, entry);
  for (const [old, { cache }] of caches) {
    if (caches.size <= MAX_CACHES) break;
    cache.close();
    caches.delete(old);
  }
  return entry.cache;
}

/**
 * Closes and forgets the caches of sessions that are over (`over`, by default {@link sessionOver}).
 * A long-lived host calls this now and then, so that an ended session's worktree watch gives the
 * user's inotify watches back at once instead of when newer sessions push it out. The agent can
 * write a session's meta.json, but that only drops a cache early: its next Stop walks the whole tree.
 */
export function dropEndedSessionCaches(over: (sessionDir: string) => boolean = sessionOver): void {
  for (const [id, { dir, cache }] of caches) {
    if (!over(dir)) continue;
    cache.close();
    caches.delete(id);
  }
}

/** What the caches this process keeps for a session folder answered and hashed (diagnostics; zeros when it keeps none). */
export function scopeCacheStats(sessionDir: string): { hits: number; hashed: number } {
  const out = { hits: 0, hashed: 0 };
  for (const { dir, cache } of caches.values()) {
    if (dir !== sessionDir) continue;
    out.hits += cache.hits;
    out.hashed += cache.hashed;
  }
  return out;
}
