// Git control files: config, hooks and info/ (and their submodule counterparts), where a
// change can switch checks off or run code later. Always in scope, never ignored or excluded.
import { gitControlSet, type GitControlSet } from './git-control-paths.js';
import type { BigIntStats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { compileGlob, matchesAny } from '../core/glob.js';
import type { Baseline, BaselineTexts, Change, FileRecord } from './scope-baseline.js';
import { differs, recordFile } from './scope-compare.js';
import type { FsPath } from './scope-hash.js';
import { walk } from './scope-walk.js';
import { lstatOrNull, readSmallBytes } from './small-file.js';

/** Control files up to this size are kept whole in the baseline, so a refusal can show what to write back. */
const CONTROL_TEXT_MAX_BYTES = 64 * 1024;

/** Lines of each kind a control-file hint lists before summarising. */
const HINT_MAX_LINES = 30;

/**
 * Whether `name`, a file directly in an info/ folder, is one git itself regenerates and no
 * command reads as a setting: `refs` lists ref names for dumb HTTP clients and is rewritten
 * by every `git gc` (the background `gc --auto` after a large commit too), through a
 * temporary `refs_XXXXXX` (mkstemp's six letters and digits) renamed over it.
 */
function isGeneratedInfo(name: string): boolean {
  return name === 'refs' || /^refs_[A-Za-z0-9]{6}$/.test(name);
}

/** Folders of a submodule's git dir that hold history, not settings: never walked. */
const HISTORY_DIRS = new Set(['objects', 'refs', 'logs', 'lfs']);

/** Called with each file found: its path relative to the worktree, its path, its lstat. */
export type Found = (rel: string, abs: FsPath, st: BigIntStats) => void | Promise<void>;

/** Where the control files are: the git dir and the common dir of the worktree's repository. */
export interface ControlDirs {
  gitdir: string;
  commondir: string;
  /** The folder `core.hooksPath` named at baseline, when set to one of its own. */
  hooks_path: string | null;
}

/** The control set (runtime/git-control-paths.ts) of the repository `dirs` recorded, for the checkout at `root`. */
function controlSet(root: string, dirs: ControlDirs): GitControlSet {
  return gitControlSet({ gitDir: dirs.gitdir, commonDir: dirs.commondir, hooksDir: dirs.hooks_path ?? join(dirs.commondir, 'hooks') }, root);
}

/**
 * Calls `found` for every control file present now, with its path relative to `root`
 * (with `..` when outside it): the control files of runtime/git-control-paths.ts (every
 * checkout's `config.worktree` and `commondir` included), everything under each hooks/ and
 * info/ folder (the one `core.hooksPath` named at baseline too, ignored or not: its files run
 * later), and in `<commondir>/modules/` every `config` and everything below a `hooks/` or `info/` folder.
 */
async function eachControlFile(root: string, dirs: ControlDirs, found: Found, deadline?: number): Promise<void> {
  const set = controlSet(root, dirs);
  const modules = join(dirs.commondir, 'modules');
  // The `.git` pointer file is a worktree file: the worktree's own walk compares it already.
  const files = set.files.filter((f) => f !== join(root, '.git'));
  const trees = set.folders.filter((f) => f !== modules);
  for (const abs of [...files, ...trees]) {
    const st = lstatOrNull(abs);
    if (st === null) continue;
    const rel = relPath(root, abs);
    // A hooks/ or info/ folder replaced by a link or a file is itself the change.
    if (!st.isDirectory()) await found(rel, abs, st);
    else if (trees.includes(abs)) await walkAll(rel, abs, found, deadline);
  }
  if (lstatOrNull(modules)?.isDirectory()) {
    const base = relPath(root, modules);
    await walk(
      modules,
      async (e) => {
        const inside = e.rel
          .split('/')
          .slice(0, -1)
          .some((p) => p === 'hooks' || p === 'info');
        if (e.st.isDirectory()) return !(HISTORY_DIRS.has(e.name) && isGitDir(e.abs));
        if (e.rel.split('/').at(-2) === 'info' && isGeneratedInfo(e.name) && typeof e.abs === 'string' && isGitDir(dirname(e.abs))) return false;
        if (inside || e.name === 'config' || e.name === 'config.worktree') await found(`${base}/${e.rel}`, e.abs, e.st);
        return false;
      },
      (rel, abs, st) => found(`${base}/${rel}`, abs, st),
      deadline,
    );
  }
}

/** Something that calls `found` for each file of a set (the control files, the watched paths). */
export type EachFile = (found: Found) => Promise<void>;

/** Records every file `each` finds, and the text of each small one. */
export async function recordFound(each: EachFile): Promise<{ files: FileRecord[]; text: [string, string][] }> {
  const files: FileRecord[] = [];
  const text: [string, string][] = [];
  await each(async (rel, abs, st) => {
    files.push(await recordFile(rel, abs, st, { allowed: false, blobAlgo: null, indexValue: undefined }));
    if (st.isFile() && st.size <= BigInt(CONTROL_TEXT_MAX_BYTES)) {
      const t = readText(abs);
      if (t !== null) text.push([rel, t]);
    }
  });
  return { files: files.sort(byPath), text };
}

/** Every file `each` finds that was created or modified since `recorded`, and every recorded one now gone. */
export async function compareFound(each: EachFile, recorded: FileRecord[], deadline?: number): Promise<Change[]> {
  const byRel = new Map(recorded.map((r) => [r[0], r]));
  const seen = new Set<string>();
  const changes: Change[] = [];
  await each(async (rel, abs, st) => {
    seen.add(rel);
    const rec = byRel.get(rel);
    if (rec === undefined) changes.push({ path: rel, change: 'created', undo: 'delete' });
    else if (await differs(rec, abs, st, false, deadline)) changes.push({ path: rel, change: 'modified', undo: 'rewrite' });
  });
  for (const [rel] of recorded) if (!seen.has(rel)) changes.push({ path: rel, change: 'deleted', undo: 'rewrite' });
  return changes;
}

/** Records every control file, and the text of each small one. */
export async function recordControl(root: string, dirs: ControlDirs): Promise<{ control: FileRecord[]; text: [string, string][] }> {
  const { files, text } = await recordFound((found) => eachControlFile(root, dirs, found));
  return { control: files, text };
}

/** Every control file created, modified or deleted since the baseline. */
export function compareControl(root: string, dirs: ControlDirs, control: FileRecord[], deadline?: number): Promise<Change[]> {
  return compareFound((found) => eachControlFile(root, dirs, found, deadline), control, deadline);
}

/**
 * Whether an allowlist admits a changed path. A control file (under `.git/`) counts only
 * when a pattern names `.git/` itself (`**` alone does not admit planting a hook), and a
 * path outside the worktree (`../…`) never does.
 * @example allowMatcher(['src/**', '.git/hooks/**'])('.git/hooks/pre-commit') // true
 */
export function allowMatcher(allow: string[]): (path: string) => boolean {
  const globs = allow.map(compileGlob);
  const gitGlobs = globs.filter((g) =>
    g.source
      .trim()
      .replace(/^(\.\/)+/, '')
      .startsWith('.git/'),
  );
  return (path) => {
    if (path === '..' || path.startsWith('../')) return false;
    if (path === '.git' || path.startsWith('.git/')) return matchesAny(path, gitGlobs);
    return matchesAny(path, globs);
  };
}

/** The texts a baseline holds itself (one just recorded, or stored by an older Gatehouse). */
export function inlineTexts(baseline: Baseline): BaselineTexts {
  return { control: baseline.git?.control_text ?? [], watch: baseline.watch?.text ?? [] };
}

/**
 * For a changed control file whose text the baseline kept (`texts`, or the baseline's own when
 * not given): the lines to take out and the lines to put back, so the file can be written back
 * as it was. Null otherwise, and when `texts` is null (they could not be read).
 */
export function controlChangeHint(baseline: Baseline, change: Change, texts?: BaselineTexts | null): string | null {
  if (change.change === 'created' || texts === null) return null;
  const kept = texts ?? inlineTexts(baseline);
  const before = kept.control.find(([rel]) => rel === change.path)?.[1] ?? kept.watch.find(([rel]) => rel === change.path)?.[1];
  if (before === undefined) return null;
  if (change.change === 'deleted') return `It held, at the start:\n${listLines(lines(before))}`;
  const now = readText(resolve(baseline.root, change.path));
  if (now === null) return `It held, at the start:\n${listLines(lines(before))}`;
  const [removed, added] = middle(lines(before), lines(now));
  const parts: string[] = [];
  if (added.length > 0) parts.push(`Lines added since the start (take them out):\n${listLines(added)}`);
  if (removed.length > 0) parts.push(`Lines it held at the start (put them back):\n${listLines(removed)}`);
  return parts.length > 0 ? parts.join('\n') : 'Only its mode or line endings changed: write it back byte for byte as it was.';
}

/**
 * Whether `abs` is (or would be, once created) a control file: the same set that
 * {@link eachControlFile} lists.
 */
export function isControlPath(abs: string, dirs: ControlDirs, root: string): boolean {
  const under = (dir: string): string | null => {
    const rel = relPath(dir, abs);
    return rel === '' || rel === '..' || rel.startsWith('../') || isAbsolute(rel) ? null : rel;
  };
  const set = controlSet(root, dirs);
  if (set.files.includes(abs)) return true;
  const modules = join(dirs.commondir, 'modules');
  for (const folder of set.folders) {
    if (folder === modules) continue;
    const rel = under(folder);
    // `info/refs` (and its temporary file) is written by git itself, not a setting: as in walkAll.
    if (rel !== null && !(basename(folder) === 'info' && isGeneratedInfo(rel))) return true;
  }
  const rel = under(modules);
  if (rel === null) return false;
  const parts = rel.split('/');
  const name = parts[parts.length - 1];
  return name === 'config' || name === 'config.worktree' || parts.slice(0, -1).some((p) => p === 'hooks' || p === 'info');
}

export async function walkAll(base: string, abs: string, found: Found, deadline?: number): Promise<void> {
  const name = abs.slice(abs.lastIndexOf('/') + 1);
  await walk(
    abs,
    async (e) => {
      if (e.st.isDirectory()) return true;
      if (name === 'info' && isGeneratedInfo(e.rel)) return false;
      await found(`${base}/${e.rel}`, e.abs, e.st);
      return false;
    },
    (rel, a, st) => found(`${base}/${rel}`, a, st),
    deadline,
  );
}

/** A git dir holds a HEAD file; only there are objects/, refs/ and logs/ history. */
function isGitDir(abs: FsPath): boolean {
  if (typeof abs !== 'string') return false;
  return lstatOrNull(join(dirname(abs), 'HEAD'))?.isFile() ?? false;
}

/** Path of `abs` relative to `root` with `/` separators (`..` when outside). */
export function relPath(root: string, abs: string): string {
  return relative(root, abs).split('\\').join('/');
}

/** A control file's text (up to the size kept); null for anything else: a link, a FIFO the agent put there, a larger file. */
function readText(abs: FsPath): string | null {
  const bytes = readSmallBytes(abs, CONTROL_TEXT_MAX_BYTES);
  if (bytes === null) return null;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

function lines(text: string): string[] {
  const ls = text.split('\n');
  if (ls[ls.length - 1] === '') ls.pop();
  return ls;
}

/** The lines between the common head and tail of `a` and `b`: [only in a, only in b]. */
function middle(a: string[], b: string[]): [string[], string[]] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  return [a.slice(start, a.length - end), b.slice(start, b.length - end)];
}

function listLines(ls: string[]): string {
  const shown = ls.slice(0, HINT_MAX_LINES).map((l) => `    ${l}`);
  if (ls.length > HINT_MAX_LINES) shown.push(`    …and ${ls.length - HINT_MAX_LINES} more lines`);
  return shown.join('\n');
}

function byPath(a: FileRecord, b: FileRecord): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}
