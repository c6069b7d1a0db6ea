// What each changed file of a session looks like against its baseline, for a person to read:
// a unified diff where the old bytes are knowable, said plainly where they are not. Every path
// and file is the agent's: no symlink is followed, every read is capped, git runs hardened.
import { createHash } from 'node:crypto';
import { unifiedHunks } from '../core/line-diff.js';
import type { FileDiff } from '../protocol/sessions.js';
import { safeGit } from './safe-git.js';
import { readWorktreeFile } from './worktree-file.js';
import type { Baseline, Change, FileRecord } from './scope-baseline.js';

/** Bounds on what one diff reads and shows. */
export interface DiffLimits {
  /** Largest file read on either side; bigger ones are named, not shown. */
  maxFileBytes: number;
  /** Most changed lines one file's diff computes (Myers' cost grows with it). */
  maxEdits: number;
  /** Characters of diff text in all; files past it are named, not shown. */
  maxChars: number;
}

/** Bytes git inspects for a NUL to call a file binary; the same here. */
const BINARY_SNIFF_BYTES = 8000;

/** What one side of a file is: its bytes, or why they are not shown (`unknown`: not knowable; `omitted`: not read). */
type Side = { kind: 'bytes'; data: Buffer; note?: string } | { kind: 'unknown' | 'omitted'; note: string };

const omitted = (note: string): Side => ({ kind: 'omitted', note });

/** True when git would call the bytes binary (a NUL early on), or they are not UTF-8 text. */
function isBinary(data: Buffer): boolean {
  if (data.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return false;
  } catch {
    return true;
  }
}

/** The file's bytes now, never through a symbolic link (runtime/worktree-file.ts). */
function readNow(root: string, rel: string, cap: number): Side {
  const f = readWorktreeFile(root, rel, cap);
  if (f.kind === 'bytes') return f;
  return omitted(f.kind === 'missing' ? 'it cannot be read now' : f.why);
}

/** The blob `<head>:<path>` from the repository the baseline names, capped; null when there is none. */
async function blobAt(baseline: Baseline, rel: string, cap: number): Promise<Side | null> {
  const git = baseline.git;
  if (git === null || !git.head) return null;
  const spec = `${git.head}:${git.prefix === '' ? rel : `${git.prefix}/${rel}`}`;
  // The git dir the baseline recorded, never whatever `.git` the worktree holds now.
  const base = ['--git-dir', git.gitdir];
  const size = await safeGit(git.gitdir, [...base, 'cat-file', '-s', spec], { maxBytes: 64 });
  if (size.code !== 0) return null;
  const bytes = Number(size.stdout.toString('utf8').trim());
  if (!Number.isSafeInteger(bytes) || bytes > cap) return omitted(`${size.stdout.toString('utf8').trim()} bytes at the start, over the ${cap}-byte limit for showing a file`);
  const blob = await safeGit(git.gitdir, [...base, 'cat-file', 'blob', spec], { maxBytes: cap + 1 });
  return blob.code === 0 ? { kind: 'bytes', data: blob.stdout } : null;
}

/** SHA-256 of `data`, base64, as the baseline records file digests. */
function sha256Base64(data: Buffer): string {
  return createHash('sha256').update(data).digest('base64');
}

/**
 * The file's bytes at the session's start, where they can be known: nothing for a file it
 * created; git's copy at the baseline commit for a file git could restore then (checked against
 * the baseline's own digest); git's copy, said to be only the commit's, for a file the baseline
 * did not hash (inside the allowlist). Dirty or untracked at start: not knowable.
 */
async function readThen(baseline: Baseline, change: Change, rec: FileRecord | undefined, cap: number): Promise<Side> {
  if (change.change === 'created') return { kind: 'bytes', data: Buffer.alloc(0) };
  if (rec === undefined) return { kind: 'unknown', note: 'Gatehouse has no record of its bytes at the start' };
  const unhashed = rec[2] === null;
  if (rec[3] !== 1 && !unhashed) {
    return { kind: 'unknown', note: 'its bytes at the start are not known: it was untracked or had uncommitted changes then, and Gatehouse keeps only a digest of it' };
  }
  const blob = await blobAt(baseline, change.path, cap);
  if (blob === null) return { kind: 'unknown', note: 'its bytes at the start are not known: git has no copy of it in the commit the session started from' };
  if (blob.kind !== 'bytes') return blob;
  if (unhashed)
    return {
      ...blob,
      note: 'compared with the commit the session started from: Gatehouse did not hash this file at the start (it is inside the allowlist), so uncommitted changes it had then show here too',
    };
  if (sha256Base64(blob.data) !== rec[2]) return { kind: 'unknown', note: "its bytes at the start are not known: git's copy no longer matches the digest recorded at the start" };
  return blob;
}

/** The first `max` characters of a diff, cut at a line end. */
function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  return text.slice(0, cut > 0 ? cut : max);
}

/** One file's entry from its two sides; `room` is the diff text still allowed. */
function entryOf(change: Change, then: Side, now: Side, room: number, maxEdits: number): FileDiff {
  const base = { path: change.path, change: change.change, diff: '', truncated: false };
  for (const side of [then, now]) if (side.kind !== 'bytes') return { ...base, shown: side.kind, note: side.note };
  const [a, b] = [then, now] as { data: Buffer; note?: string }[];
  if (isBinary(a!.data) || isBinary(b!.data)) return { ...base, shown: 'binary', note: 'a binary file: named, not shown' };
  if (room <= 0) return { ...base, shown: 'omitted', note: 'left out: the diffs above fill what one response can carry' };
  const hunks = unifiedHunks(a!.data.toString('utf8'), b!.data.toString('utf8'), maxEdits);
  if (hunks === null) return { ...base, shown: 'omitted', note: `over ${maxEdits} changed lines: too many to show here` };
  const text = cutAtLine(hunks, room);
  return { ...base, shown: 'text', diff: text, truncated: text.length < hunks.length, note: a!.note ?? '' };
}

/**
 * Each change as a person can read it, in order: created files all added, deleted ones all
 * removed, modified ones against their bytes at the start where those are knowable.
 * @example await worktreeDiff(baseline.root, baseline, await changedSince(wt, baseline), limits)
 */
export async function worktreeDiff(root: string, baseline: Baseline, changes: readonly Change[], limits: DiffLimits): Promise<FileDiff[]> {
  const records = new Map(baseline.files.map((r) => [r[0], r]));
  let room = limits.maxChars;
  const out: FileDiff[] = [];
  for (const change of changes) {
    if (change.path.startsWith('../') || change.path === '.git' || change.path.startsWith('.git/')) {
      out.push({ path: change.path, change: change.change, shown: 'omitted', diff: '', truncated: false, note: 'a git control or configuration file: named, not shown' });
      continue;
    }
    const now: Side = change.change === 'deleted' ? { kind: 'bytes', data: Buffer.alloc(0) } : readNow(root, change.path, limits.maxFileBytes);
    const then = now.kind === 'bytes' ? await readThen(baseline, change, records.get(change.path), limits.maxFileBytes) : now;
    const entry = entryOf(change, then, now, room, limits.maxEdits);
    room -= entry.diff.length;
    out.push(entry);
  }
  return out;
}
