// Scope baseline: what the worktree looked like at session start, and every file changed
// since then by any tool (shell included), for the scope check against the allowlist.
import { changedSinceGit, recordGitBaseline } from './scope-git.js';
import { changedSinceManifest, recordManifest } from './scope-manifest.js';

/** One changed file; `path` is relative to the worktree, with `/` separators. */
export type Change = { path: string; change: 'created' | 'modified' | 'deleted' };

/**
 * Baseline of a git worktree. `head` is the commit at baseline (null before the first
 * commit). `dirty` holds every path that differed from `head` at baseline (modified,
 * deleted, untracked and not ignored), mapped to `"<git mode> <git object id>"` of its
 * content then (e.g. `"100644 e69de29…"`, object id in the repository's own hash), or
 * null when absent. `ignore` is a digest of the ignore rules kept in `.git/` and in
 * `core.excludesFile`, which the agent could edit without the edit showing as a change.
 */
export type GitBaseline = { kind: 'git'; head: string | null; ignore: string; dirty: Record<string, string | null> };

/**
 * What the manifest keeps of one file: stat fields for the fast path, and the sha256 of
 * its content (of `symlink\0<target>` for a symbolic link, which is never followed).
 */
export type ManifestEntry = { size: number; mtime_ns: string; ctime_ns: string; ino: number; sha256: string };

/** Baseline of a folder outside git: every regular file and symlink under it. */
export type ManifestBaseline = { kind: 'manifest'; files: Record<string, ManifestEntry> };

/** A worktree baseline; plain JSON, so the session store can keep it on disk. */
export type Baseline = GitBaseline | ManifestBaseline;

/** Options for {@link recordBaseline} and {@link changedSince}. */
export interface ScopeOptions {
  /** Worktree-relative paths never reported; a path also covers everything under it. */
  exclude?: string[];
  /** `Date.now()` past which the comparison gives up with a {@link ScopeBudgetError}. */
  deadline?: number;
}

/** The comparison could not finish before its deadline. */
export class ScopeBudgetError extends Error {}

/** Tells whether a worktree-relative path is excluded from the scope. */
export type PathFilter = (rel: string) => boolean;

/**
 * Records the worktree's baseline: git-based inside a git work tree (unless the worktree
 * is itself ignored there), a content manifest otherwise.
 * @example const baseline = await recordBaseline('/src/app', { exclude: ['.claude/settings.json'] })
 */
export async function recordBaseline(worktree: string, opts: ScopeOptions = {}): Promise<Baseline> {
  const skip = pathFilter(opts.exclude);
  return (await recordGitBaseline(worktree, skip)) ?? recordManifest(worktree, skip);
}

/**
 * Lists every file created, modified or deleted since `baseline`, sorted by path; a
 * rename shows as its old path deleted and its new path created. Throws when the
 * worktree can no longer be read the way the baseline was taken (e.g. `.git` removed).
 * @example for (const c of await changedSince(wt, baseline)) check(c.path)
 */
export async function changedSince(worktree: string, baseline: Baseline, opts: ScopeOptions = {}): Promise<Change[]> {
  const skip = pathFilter(opts.exclude);
  const changes =
    baseline.kind === 'git'
      ? await changedSinceGit(worktree, baseline, skip)
      : await changedSinceManifest(worktree, baseline, skip);
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function pathFilter(exclude: string[] = []): PathFilter {
  const roots = exclude.map((e) => e.replace(/^(\.\/)+/, '').replace(/\/+$/, '')).filter((e) => e !== '');
  return (rel) => roots.some((r) => rel === r || rel.startsWith(`${r}/`));
}
