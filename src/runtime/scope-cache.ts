// What a long-lived host (the warm supervisor's gate worker) keeps of one session's scope check
// between Stops: the baseline's lookup tables, and each hashed file's verdict under its stat key.
import { statfsSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import type { Baseline, FileRecord } from './scope-baseline.js';
import { digestOf, type Digest, type FsPath } from './scope-hash.js';
import type { FrozenIgnore } from './scope-ignore.js';
import { lstatOrNull, RACY_MARGIN_MS, statKey } from './scope-walk.js';

/**
 * Filesystem types (statfs `f_type`) whose timestamps come from this kernel's clock: ext2/3/4,
 * xfs, btrfs, tmpfs, overlayfs, zfs, f2fs, bcachefs. On any other (NFS, SMB, FUSE) a server
 * stamps ctime with a clock that may lag ours, so no verdict is kept there.
 */
const LOCAL_FS_TYPES = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0xca451a4e]);

/** Sessions (baselines) whose caches one host keeps; the oldest used is dropped past this. */
const MAX_CACHES = 16;

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

  constructor(private readonly racyMarginMs: number = RACY_MARGIN_MS) {}

  /** The lookup tables of `files`, built on first use. */
  tables(files: FileRecord[], build: () => BaselineTables): BaselineTables {
    if (this.tablesOf?.files !== files) this.tablesOf = { files, tables: build() };
    return this.tablesOf.tables;
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

const caches = new Map<string, { dir: string; baseline: Baseline; cache: ScopeCache }>();

/**
 * The cache of one session's checks in this process: the same object while `baseline` (the
 * verified, parsed copy) and the options stay the same; a new one when either changes.
 * @example changedSince(wt, baseline, { allow, cache: sessionScopeCache(sessionDir, baseline, allow, exclude) })
 */
export function sessionScopeCache(sessionDir: string, baseline: Baseline, allow: string[], exclude: string[]): ScopeCache {
  const id = JSON.stringify([sessionDir, allow, exclude]);
  const found = caches.get(id);
  caches.delete(id);
  const entry = found !== undefined && found.baseline === baseline ? found : { dir: sessionDir, baseline, cache: new ScopeCache() };
  caches.set(id, entry);
  for (const old of caches.keys()) {
    if (caches.size <= MAX_CACHES) break;
    caches.delete(old);
  }
  return entry.cache;
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

function localFs(path: string): boolean {
  try {
    return LOCAL_FS_TYPES.has(statfsSync(path).type);
  } catch {
    return false;
  }
}
