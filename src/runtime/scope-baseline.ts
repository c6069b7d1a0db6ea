// Scope baseline: what the worktree looked like at session start, and every file changed
// since then by any tool (shell included), found without taking git's word for anything.
import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { allowMatcher, compareControl, inlineTexts, recordControl, relPath } from './scope-control.js';
import { baselineTables, compareTree, recordTree, type DotGit } from './scope-compare.js';
import { gitFacts } from './scope-git-facts.js';
import { checkDeadline } from './scope-hash.js';
import { FrozenIgnore, type RuleSource } from './scope-ignore.js';
import type { ScopeCache } from './scope-cache.js';
import { compareWatch, recordWatch, type WatchBaseline } from './scope-watch.js';

export { ScopeBudgetError } from './scope-hash.js';
export { allowMatcher, controlChangeHint } from './scope-control.js';
export { differsFromBaseline } from './scope-probe.js';

/**
 * One changed file. `path` is relative to the worktree with `/` separators; a git
 * control file outside the worktree has `..` in it (and no allow pattern admits it).
 * `undo` says how to bring the file back: `checkout` (at baseline it was tracked and its
 * index entry and HEAD held exactly its bytes, so `git checkout -- <path>` restores it),
 * `delete` (it was created in the session), `rewrite` (anything else: dirty or untracked
 * at baseline, a control file, a file inside the allowlist: its bytes must be written
 * back as they were).
 */
export type Change = { path: string; change: 'created' | 'modified' | 'deleted'; undo: 'checkout' | 'delete' | 'rewrite' };

/**
 * One file in the baseline: `[path, stat key, sha256, restorable]`. The stat key is
 * `size:mtime_ns:ctime_ns:ino:mode` (null: a tracked path absent at baseline, kept in
 * scope); sha256 is base64 of the raw bytes (a symlink: its target text), null when not
 * hashed (inside the allowlist, over the size cap, unreadable) or `-` for a FIFO, socket
 * or device; restorable is 1 when `git checkout -- <path>` brings back these bytes.
 */
export type FileRecord = [string, string | null, string | null, 0 | 1];

/** What a git worktree's baseline keeps beyond its files. */
interface GitBaseline {
  /** Absolute git dir and common dir: where the control files are. */
  gitdir: string;
  commondir: string;
  /** The folder `core.hooksPath` named at baseline (absolute), checked as control files; null when unset. */
  hooks_path: string | null;
  /** The worktree's folder relative to the repository's top level (`''` for the top). */
  prefix: string;
  /** The commit HEAD named at baseline (null before the first commit); absent in baselines of older builds. */
  head?: string | null;
  ignore_case: boolean;
  /** The ignore rule texts in force at baseline; null when the repository ignores the worktree itself. */
  rules: RuleSource[] | null;
  /** Control files (config, hooks, info/, submodule configs) as they were. */
  control: FileRecord[];
  /**
   * The text of each control file up to 64 KiB, for {@link controlChangeHint}; empty in a
   * session's stored baseline, which keeps them apart (`texts_sha256`). Empty, not absent, so that
   * an older Gatehouse reading the baseline (a supervisor left running across an upgrade) finds no
   * hint rather than failing.
   */
  control_text: [string, string][];
}

/** A worktree baseline: plain JSON, so the session store can keep it on disk. */
export interface Baseline {
  v: typeof BASELINE_VERSION;
  /** The worktree's absolute path at baseline. */
  root: string;
  /** Every file in scope, sorted by path. */
  files: FileRecord[];
  /** `.git` entries inside the worktree (not walked): `[path, type, sha256]`, type `d`, `f`, `l` or `o`. */
  dot_git: DotGit[];
  /** Null outside git. */
  git: GitBaseline | null;
  /** Paths outside the worktree watched like control files (git's and Gatehouse's user config); absent when none were asked for. */
  watch?: WatchBaseline;
  /**
   * SHA-256 of the session's baseline-text.json, which holds the texts this baseline was stored
   * without ({@link splitTexts}); absent where the texts are inline (a baseline just recorded, or
   * stored by an older Gatehouse).
   */
  texts_sha256?: string;
}

/** The control and watched files' texts as they were: read only to tell how to put a changed one back. */
export interface BaselineTexts {
  control: [string, string][];
  watch: [string, string][];
}

/**
 * The baseline without its files' texts, and the texts. Every refusal and Stop reads and hashes
 * the baseline; the texts (git's sample hooks alone are 23 KB, three quarters of a fresh
 * repository's baseline) only a refusal that names a changed control file needs.
 */
export function splitTexts(baseline: Baseline): { kept: Baseline; texts: BaselineTexts } {
  const texts = inlineTexts(baseline);
  const kept: Baseline = { ...baseline, git: baseline.git === null ? null : { ...baseline.git, control_text: [] } };
  if (baseline.watch) kept.watch = { ...baseline.watch, text: [] };
  return { kept, texts };
}

/** The baseline format written by this version; an older one cannot be checked. */
export const BASELINE_VERSION = 2;

/** Options for {@link recordBaseline}. */
export interface ScopeOptions {
  /** Worktree-relative paths never reported; a path also covers everything under it. */
  exclude?: string[];
  /** The allowlist's globs: files they match are compared by stat fields only, never hashed. */
  allow?: string[];
  /** Absolute files or folders outside the worktree whose changes count as out of scope (see scope-watch.ts). */
  watch?: string[];
}

/** Options for {@link changedSince}. */
export interface CheckOptions extends ScopeOptions {
  /** Epoch ms; past it the check throws {@link ScopeBudgetError}. */
  deadline?: number;
  /**
   * What a long-lived host keeps between checks of the same baseline (scope-cache.ts): the
   * result is the same as without it; only files already hashed under their present stat key are not read again.
   */
  cache?: ScopeCache;
}

/**
 * Records the worktree's baseline with one walk of its files. Inside a git work tree it
 * also keeps the ignore rules in force, the control files, and which files `git
 * checkout` restores; git is asked, with hardened settings, only here.
 * @example const baseline = await recordBaseline('/src/app', { allow: ['src/**'], exclude: ['.claude/settings.json'] })
 */
export async function recordBaseline(worktree: string, opts: ScopeOptions = {}): Promise<Baseline> {
  const root = realPath(worktree);
  const facts = await gitFacts(root);
  const ruled = facts !== null && !facts.ignored;
  const ignore = ruled ? new FrozenIgnore(facts.rules, facts.prefix, facts.ignoreCase) : null;
  const hooksPath = facts?.hooksPath ?? null;
  const tree = await recordTree(root, { skip: pathFilter(opts.exclude, root, hooksPath), allowed: allowMatcher(opts.allow ?? []), ignore }, ruled ? facts : null);
  let git: GitBaseline | null = null;
  if (facts !== null) {
    const dirs = { gitdir: facts.gitdir, commondir: facts.commondir, hooks_path: hooksPath };
    const { control, text } = await recordControl(root, dirs);
    git = { ...dirs, prefix: facts.prefix, head: facts.head, ignore_case: facts.ignoreCase, rules: ruled ? [...facts.rules, ...tree.rules] : null, control, control_text: text };
  }
  const watch = opts.watch && opts.watch.length > 0 ? { watch: await recordWatch(root, opts.watch) } : {};
  return { v: BASELINE_VERSION, root, files: tree.files, dot_git: tree.dotGit, git, ...watch };
}

/**
 * Lists every file created, modified or deleted since `baseline`, sorted by path; a
 * rename shows as its old path deleted and its new path created. Nothing the agent can
 * change since the baseline (git config, index, attributes, ignore files) bears on it.
 * @example for (const c of await changedSince(wt, baseline, { allow, deadline: Date.now() + 5000 })) check(c.path)
 */
export async function changedSince(worktree: string, baseline: Baseline, opts: CheckOptions = {}): Promise<Change[]> {
  assertBaseline(baseline);
  checkDeadline(opts.deadline);
  const root = realPath(worktree);
  const git = baseline.git;
  const frozen = (): FrozenIgnore | null => (git?.rules ? new FrozenIgnore(git.rules, git.prefix, git.ignore_case) : null);
  // The compiled rules are kept with the cache's tables: they are the baseline's, never the worktree's files.
  const ignore = opts.cache !== undefined ? opts.cache.tables(baseline.files, () => baselineTables(baseline.files, frozen())).ignore : frozen();
  const rules = { skip: pathFilter(opts.exclude, root, git?.hooks_path ?? null), allowed: allowMatcher(opts.allow ?? []), ignore };
  const changes = await compareTree(root, baseline.files, baseline.dot_git, rules, opts.deadline, opts.cache);
  if (git !== null) changes.push(...(await compareControl(root, git, git.control, opts.deadline)));
  if (baseline.watch) changes.push(...(await compareWatch(root, baseline.watch, opts.deadline)));
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Throws unless `b` is a baseline this version can check (it is read back from disk). */
export function assertBaseline(b: unknown): asserts b is Baseline {
  const v = (b as { v?: unknown } | null)?.v;
  if (v !== BASELINE_VERSION || !Array.isArray((b as Baseline).files)) {
    throw new Error(`the scope baseline has format ${JSON.stringify(v ?? 1)}, not ${BASELINE_VERSION}: start a new session to record one`);
  }
}

/** The worktree's real path, as git reports its top level (so control paths read `.git/…`). */
export function realPath(worktree: string): string {
  try {
    return realpathSync(worktree);
  } catch {
    return resolve(worktree);
  }
}

/**
 * Paths the worktree walk leaves out: the excluded ones, and a `core.hooksPath` folder
 * inside the worktree, which is checked with the control files instead.
 */
function pathFilter(exclude: string[] = [], root: string, hooksPath: string | null): (rel: string) => boolean {
  const roots = exclude.map((e) => e.replace(/^(\.\/)+/, '').replace(/\/+$/, '')).filter((e) => e !== '');
  const hooks = hooksPath === null ? null : relPath(root, hooksPath);
  if (hooks !== null && !hooks.startsWith('../') && !isAbsolute(hooks)) roots.push(hooks);
  return (rel) => roots.some((r) => rel === r || rel.startsWith(`${r}/`));
}
