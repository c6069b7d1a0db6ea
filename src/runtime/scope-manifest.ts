// Manifest side of the scope baseline, for folders outside git: stat fields and sha256 of
// every file, so a second walk can tell which files were created, changed or removed.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { createReadStream, lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Change, ManifestBaseline, ManifestEntry, PathFilter } from './scope-baseline.js';

/**
 * Small files are read with one blocking call: on a 20,000-file tree the promise and
 * stream APIs cost six times as much as the work itself. Larger files are streamed, so a
 * big file neither blocks the process for long nor is held whole in memory.
 */
const WHOLE_READ_MAX_BYTES = 1024 * 1024;

/**
 * Files (or directory entries) handled between yields to the event loop: about 10 ms of
 * blocking work, so a server in the same process keeps answering during a long walk.
 */
const ITEMS_PER_TURN = 500;

type Entry = { rel: string; st: BigIntStats };

/** Records every regular file and symlink under `root` (skipping `.git` folders). */
export async function recordManifest(root: string, skip: PathFilter): Promise<ManifestBaseline> {
  const entries = await walk(root, skip);
  const sums = await inTurns(entries, (e) => contentSha256(join(root, e.rel), e.st));
  // fromEntries defines own properties, so a file named `__proto__` survives.
  const files = Object.fromEntries(entries.map((e, i): [string, ManifestEntry] => [e.rel, { ...statKey(e.st), sha256: sums[i]! }]));
  return { kind: 'manifest', files };
}

/** Walks `root` again and compares it with the manifest. */
export async function changedSinceManifest(root: string, base: ManifestBaseline, skip: PathFilter): Promise<Change[]> {
  const entries = await walk(root, skip);
  const seen = new Set(entries.map((e) => e.rel));
  const found = await inTurns(entries, async ({ rel, st }): Promise<Change | null> => {
    const before = Object.hasOwn(base.files, rel) ? base.files[rel] : undefined;
    if (before === undefined) return { path: rel, change: 'created' };
    // Trade-off: a file whose size, mtime, ctime and inode all match is taken as unchanged
    // without reading it, as git's index does. `utimes` can put mtime back but not ctime,
    // so only a rewrite within one kernel clock tick of the baseline (or a clock change)
    // slips through; rehashing every file on every check would cost far more.
    const key = statKey(st);
    if (key.size === before.size && key.mtime_ns === before.mtime_ns && key.ctime_ns === before.ctime_ns && key.ino === before.ino) return null;
    return (await contentSha256(join(root, rel), st)) === before.sha256 ? null : { path: rel, change: 'modified' };
  });
  const changes = found.filter((c): c is Change => c !== null);
  for (const rel of Object.keys(base.files)) {
    if (!seen.has(rel) && !skip(rel)) changes.push({ path: rel, change: 'deleted' });
  }
  return changes;
}

/**
 * A digest of every file under `dir` (paths and contents, `.git` skipped): how the git
 * side compares a nested repository or submodule, which git itself does not look into.
 */
export async function treeDigest(dir: string): Promise<string> {
  const entries = await walk(dir, () => false);
  const sums = await inTurns(entries, (e) => contentSha256(join(dir, e.rel), e.st));
  const h = createHash('sha256');
  entries.forEach((e, i) => h.update(`${e.rel}\0${sums[i]}\0`));
  return h.digest('hex');
}

/** `lstat`, or null when nothing is at `path` (any other failure is thrown). */
export function lstatOrNull(path: string): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/** Feeds a file's bytes into `h`; a large file is streamed, never held whole. */
export async function hashFile(path: string, h: Hash, size: bigint): Promise<void> {
  if (size <= WHOLE_READ_MAX_BYTES) h.update(readFileSync(path));
  else for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
}

/** Maps `items` through `fn` one at a time, yielding to the event loop between batches. */
export async function inTurns<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const [i, item] of items.entries()) {
    if (i > 0 && i % ITEMS_PER_TURN === 0) await nextTurn();
    out.push(await fn(item));
  }
  return out;
}

async function contentSha256(path: string, st: BigIntStats): Promise<string> {
  const h = createHash('sha256');
  if (st.isSymbolicLink()) h.update('symlink\0').update(readlinkSync(path, { encoding: 'buffer' }));
  else await hashFile(path, h, st.size);
  return h.digest('hex');
}

function statKey(st: BigIntStats): Omit<ManifestEntry, 'sha256'> {
  return { size: Number(st.size), mtime_ns: st.mtimeNs.toString(), ctime_ns: st.ctimeNs.toString(), ino: Number(st.ino) };
}

/** Regular files and symlinks under `root`, in a stable order; symlinks are never followed. */
async function walk(root: string, skip: PathFilter): Promise<Entry[]> {
  const out: Entry[] = [];
  const dirs = [''];
  let sinceTurn = 0;
  for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
    const names = readdirSync(join(root, dir)).sort();
    const subdirs: string[] = [];
    for (const name of names) {
      const rel = dir === '' ? name : `${dir}/${name}`;
      if (name === '.git' || skip(rel)) continue;
      const st = lstatOrNull(join(root, rel)); // null: removed while we walked
      if (st?.isDirectory()) subdirs.push(rel);
      else if (st?.isFile() || st?.isSymbolicLink()) out.push({ rel, st });
    }
    for (let i = subdirs.length - 1; i >= 0; i--) dirs.push(subdirs[i]!); // first subfolder on top
    sinceTurn += names.length;
    if (sinceTurn >= ITEMS_PER_TURN) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
  return out;
}
