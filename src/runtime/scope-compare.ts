// The worktree side of the scope check: one walk records every in-scope file at the
// baseline, and a later walk compares against that record (stat first, then content).
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import type { Change, FileRecord } from './scope-baseline.js';
import type { GitFacts } from './scope-git-facts.js';
import { readRegular } from './scope-git-facts.js';
import { HASH_MAX_BYTES, digestOf, digestSync, type Digest, type FsPath } from './scope-hash.js';
import type { FrozenIgnore, RuleSource } from './scope-ignore.js';
import type { BaselineTables, ScopeCache } from './scope-cache.js';
import { modeOfKey, statKey, walk, type OnUnreadable, type Visit } from './scope-walk.js';
import { walkWatched } from './scope-walk-watched.js';
import { applyOp, type Op } from './scope-journal.js';

/** The digest recorded for a FIFO, socket or device: never opened, compared by type and mode only. */
const NO_CONTENT = '-';

/**
 * A `.git` entry inside the worktree, never walked: `[path, type, sha256]`. The digest of
 * a gitfile or link says which repository it points git at; null for a folder.
 */
export type DotGit = [string, string, string | null];

/** How a walk decides what is in scope. */
export interface TreeRules {
  /** Excluded paths (Gatehouse's own rendered files): never recorded nor reported. */
  skip: (rel: string) => boolean;
  /** Paths inside the allowlist: recorded and compared by stat fields only. */
  allowed: (rel: string) => boolean;
  /** Git's ignore rules, or null outside git. */
  ignore: FrozenIgnore | null;
}

/** What the baseline walk found: files in scope, `.git` entries, and the `.gitignore` texts met. */
export interface TreeRecord {
  files: FileRecord[];
  dotGit: DotGit[];
  rules: RuleSource[];
}

/** Records the worktree at baseline. `git` supplies the tracked paths (always in scope) and what the index holds. */
export async function recordTree(root: string, rules: TreeRules, git: GitFacts | null): Promise<TreeRecord> {
  const out: TreeRecord = { files: [], dotGit: [], rules: [] };
  const tracked = git?.index ?? new Map<string, string>();
  const trackedDirs = foldersOf(tracked.keys());
  const ignoredDirs = new Set<string>();
  const seen = new Set<string>();
  const loadRules = (rel: string, abs: FsPath): void => {
    if (rules.ignore === null || git === null || typeof abs !== 'string') return;
    const text = readRegular(join(abs, '.gitignore'));
    if (text === null) return;
    const where = [git.prefix, rel].filter((p) => p !== '').join('/');
    rules.ignore.add([where, text]);
    out.rules.push([where, text]);
  };
  loadRules('', root);
  await walk(
    root,
    (e) => {
      if (rules.skip(e.rel)) return false;
      const under = ignoredDirs.has(e.parent);
      if (e.name === '.git') {
        if (!under) out.dotGit.push([e.rel, typeOf(e.st), pointerDigest(e.abs, e.st)]);
        return false;
      }
      if (e.st.isDirectory()) {
        if (under || rules.ignore?.ignores(e.rel, true)) {
          if (!trackedDirs.has(e.rel)) return false;
          ignoredDirs.add(e.rel);
        } else loadRules(e.rel, e.abs);
        return true;
      }
      if (!tracked.has(e.rel) && (under || rules.ignore?.ignores(e.rel, false))) return false;
      seen.add(e.rel);
      const index = tracked.get(e.rel);
      // Only a file staged as in HEAD can come back with `git checkout -- <path>` as it is now.
      const candidate = git !== null && git.hasHead && index !== undefined && index !== '' && !git.staged.has(e.rel);
      const rec = recordFile(e.rel, e.abs, e.st, { allowed: rules.allowed(e.rel), blobAlgo: candidate ? git.algo : null, indexValue: index });
      const add = (r: FileRecord): false => {
        out.files.push(r);
        return false;
      };
      return rec instanceof Promise ? rec.then(add) : add(rec);
    },
    (rel, _abs, st) => {
      if (ignoredDirs.has(parentOf(rel)) || rules.ignore?.ignores(rel, true)) return;
      seen.add(rel);
      out.files.push([rel, statKey(st), null, 0]);
    },
  );
  // A tracked path absent at baseline stays in scope, whatever the ignore rules say.
  for (const rel of tracked.keys()) if (!seen.has(rel) && !rules.skip(rel)) out.files.push([rel, null, null, 0]);
  out.files.sort(byPath);
  return out;
}

/** The lookup tables the comparison needs of a baseline's records. */
export function baselineTables(files: FileRecord[], ignore: FrozenIgnore | null): BaselineTables {
  const index = new Map(files.map((r, i) => [r[0], i]));
  return { index, recordedDirs: foldersOf(index.keys()), ignore };
}

/**
 * Every in-scope file created, modified or deleted since `files` was recorded. With `cache`
 * (a long-lived host's, see scope-cache.ts) a file already hashed under its present stat key
 * is not read again, and with the cache's worktree watch only what inotify named since the
 * last check is listed or lstat'ed again, and a folder with nothing named in or below it is
 * replayed from the cache's journal; the result is the same as without either.
 */
export async function compareTree(root: string, files: FileRecord[], dotGit: DotGit[], rules: TreeRules, deadline?: number, cache?: ScopeCache): Promise<Change[]> {
  const { index, recordedDirs } = cache?.tables(files, () => baselineTables(files, rules.ignore)) ?? baselineTables(files, rules.ignore);
  const cached = cache?.walk(root);
  const dotGitThen = new Map(dotGit.map(([rel, type, digest]) => [rel, `${type}:${digest}`]));
  const ignoredDirs = new Set<string>();
  const seen = new Uint8Array(files.length);
  const changes: Change[] = [];
  const watch = cache?.worktreeWatch(root) ?? null;
  // With a worktree watch, what the walk's visits do is recorded, folder by folder, for the next check to replay.
  const journal = watch === null ? undefined : cache?.journal;
  const state = { seen, changes, ignoredDirs, dotGitThen };
  const see = (i: number): void => {
    seen[i] = 1;
    journal?.see(i);
  };
  const effect = (op: Op): void => {
    applyOp(op, state);
    journal?.op(op);
  };
  const change = (c: Change): void => effect({ change: c });
  // The stat fields and, where they changed, the content: a promise only while a large file is hashed.
  const contentOf = (rec: FileRecord, rel: string, abs: FsPath, st: BigIntStats, key: string): boolean | Promise<boolean> => {
    const quick = quickVerdict(rec, key, st, () => rules.allowed(rel));
    if (quick !== null) return quick;
    const changed = (now: Digest | null): boolean => now === null || now.sha256 !== rec[2];
    return cached !== undefined ? cached(rel, abs, st, changed, deadline) : hashDiffers(abs, st, changed, deadline);
  };
  // Returns false (never walk into a file), or a promise of it while a large file is hashed.
  const compare = (rel: string, abs: FsPath, st: BigIntStats, under: boolean, known?: string): false | Promise<false> => {
    const i = index.get(rel);
    if (i === undefined) {
      if (!under && !rules.ignore?.ignores(rel, st.isDirectory())) change({ path: rel, change: 'created', undo: 'delete' });
      return false;
    }
    see(i);
    const rec = files[i]!;
    if (rec[1] === null) {
      change({ path: rel, change: 'created', undo: 'delete' });
      return false;
    }
    const key = known ?? statKey(st);
    // Most of a tree: the stat key as recorded, so unchanged (ctime cannot be set back).
    if (key === rec[1]) return false;
    const modified = (yes: boolean): false => {
      if (yes) change({ path: rel, change: 'modified', undo: undoOf(rec) });
      return false;
    };
    const d = contentOf(rec, rel, abs, st, key);
    return typeof d === 'boolean' ? modified(d) : d.then(modified);
  };
  journal?.into(state);
  await (watch === null ? walk : (r: string, v: Visit, u: OnUnreadable, d?: number) => walkWatched(r, watch, v, u, d, journal))(
    root,
    (e) => {
      if (rules.skip(e.rel)) return false;
      const under = ignoredDirs.has(e.parent);
      if (e.name === '.git') {
        const then = dotGitThen.get(e.rel);
        effect({ dotGit: e.rel });
        if (then === undefined && !under) change({ path: e.rel, change: 'created', undo: 'delete' });
        else if (then !== undefined && then !== `${typeOf(e.st)}:${pointerDigest(e.abs, e.st)}`) change({ path: e.rel, change: 'modified', undo: 'rewrite' });
        return false;
      }
      if (e.st.isDirectory()) {
        if (under || rules.ignore?.ignores(e.rel, true)) {
          if (!recordedDirs.has(e.rel)) return false;
          effect({ ignored: e.rel });
        }
        return true;
      }
      return compare(e.rel, e.abs, e.st, under, e.key);
    },
    async (rel, abs, st) => {
      await compare(rel, abs, st, ignoredDirs.has(parentOf(rel)));
    },
    deadline,
  );
  files.forEach((rec, i) => {
    if (rec[1] !== null && seen[i] === 0 && !rules.skip(rec[0])) changes.push({ path: rec[0], change: 'deleted', undo: undoOf(rec) });
  });
  for (const [rel] of dotGitThen) if (!rules.skip(rel)) changes.push({ path: rel, change: 'deleted', undo: 'rewrite' });
  return changes;
}

/** The record of one file: stat key, content digest (unless allowed or too big), restorability. */
export function recordFile(rel: string, abs: FsPath, st: BigIntStats, how: { allowed: boolean; blobAlgo: string | null; indexValue: string | undefined }): FileRecord | Promise<FileRecord> {
  const key = statKey(st);
  if (!st.isFile() && !st.isSymbolicLink()) return [rel, key, NO_CONTENT, 0];
  if (how.allowed || st.size > BigInt(HASH_MAX_BYTES)) return [rel, key, null, 0];
  const record = (d: Digest | null): FileRecord => {
    if (d === null) return [rel, key, null, 0];
    // `git checkout -- <path>` brings back exactly this when index, HEAD and file all agree.
    const restorable = d.blob !== null && `${gitMode(st)} ${d.blob} 0` === how.indexValue;
    return [rel, key, d.sha256, restorable ? 1 : 0];
  };
  const d = digestOf(abs, st, how.blobAlgo);
  return d instanceof Promise ? d.then(record) : record(d);
}

/**
 * Whether a recorded file differs now. Equal stat keys mean unchanged (ctime cannot be
 * set back); otherwise a different type or mode is a change, and content decides, except
 * where it was not hashed (inside the allowlist, over the cap, unreadable): there the
 * stat change alone counts.
 */
export function differs(rec: FileRecord, abs: FsPath, st: BigIntStats, allowedNow: boolean, deadline?: number): boolean | Promise<boolean> {
  const quick = quickVerdict(rec, statKey(st), st, () => allowedNow);
  if (quick !== null) return quick;
  return hashDiffers(abs, st, (now) => now === null || now.sha256 !== rec[2], deadline);
}

function hashDiffers(abs: FsPath, st: BigIntStats, changed: (now: Digest | null) => boolean, deadline?: number): boolean | Promise<boolean> {
  const now = digestOf(abs, st, null, deadline);
  return now instanceof Promise ? now.then(changed) : changed(now);
}

/** {@link differs} read synchronously, for the hook's one-path question. */
export function differsSync(rec: FileRecord, abs: FsPath, st: BigIntStats): boolean {
  return quickVerdict(rec, statKey(st), st, () => false) ?? digestSync(abs, st) !== rec[2];
}

/** The verdict the stat fields alone give (null: the content decides); `allowedNow` is asked only when it matters. */
function quickVerdict(rec: FileRecord, key: string, st: BigIntStats, allowedNow: () => boolean): boolean | null {
  if (rec[1] === null) return true;
  if (key === rec[1]) return false;
  if (modeOfKey(key) !== modeOfKey(rec[1])) return true;
  if (rec[2] === NO_CONTENT) return false;
  if (rec[2] === null || st.size > BigInt(HASH_MAX_BYTES) || allowedNow()) return true;
  return null;
}

/** Every folder that holds one of `paths`, at any depth. */
export function foldersOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let cut = p.lastIndexOf('/'); cut > 0; cut = p.lastIndexOf('/', cut - 1)) {
      const d = p.slice(0, cut);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return dirs;
}

function parentOf(rel: string): string {
  const cut = rel.lastIndexOf('/');
  return cut === -1 ? '' : rel.slice(0, cut);
}

function undoOf(rec: FileRecord): Change['undo'] {
  return rec[3] === 1 ? 'checkout' : 'rewrite';
}

/** The digest of a gitfile's or link's content (the repository it points at); null for a folder. */
function pointerDigest(abs: FsPath, st: BigIntStats): string | null {
  if (!st.isFile() && !st.isSymbolicLink()) return null;
  return digestSync(abs, st) ?? 'unreadable';
}

function typeOf(st: BigIntStats): string {
  return st.isDirectory() ? 'd' : st.isFile() ? 'f' : st.isSymbolicLink() ? 'l' : 'o';
}

function gitMode(st: BigIntStats): string {
  return st.isSymbolicLink() ? '120000' : st.mode & 0o100n ? '100755' : '100644';
}

function byPath(a: FileRecord, b: FileRecord): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}
