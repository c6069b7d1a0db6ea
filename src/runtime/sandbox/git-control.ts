// The git control paths a sandbox must keep the agent from making. Commits need the git folder
// writable, so a control folder the repository lacks (a planted `.git/hooks/pre-commit` runs at
// your next commit) is made empty for the session and bound read-only; a control *file* cannot
// be kept from being made that way (git reads any file at `commondir`, an empty one included),
// so one the agent made is moved aside when the session is over.
import { cpSync, existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isInsideAny } from '../../core/path-inside.js';
import { gitControlSet, type GitDirs } from '../git-control-paths.js';
import { resolveWriteTarget } from '../resolve-path.js';

/** The control folders and files of a repository, and the undo for what planning made. */
export interface GitControlPlan {
  /** Control folders to bind read-only (those made for the session among them). */
  readOnly: string[];
  /**
   * Removes the folders made for the session that are still empty, and moves each control file
   * that was missing at the start and exists now into `quarantine`; returns those moved.
   */
  undo(quarantine: string): [from: string, to: string][];
}

/** The real path `p` has, or will have once made (links on the way followed); `p` itself when it cannot be resolved. */
function realOnceMade(p: string): string {
  const real = resolveWriteTarget(p, '/');
  return real.ok ? real.value : p;
}

/**
 * Plans the control paths (runtime/git-control-paths.ts) inside `writable` folders: makes the
 * missing control folders (hooks/, each checkout's info/, modules/, the folder `core.hooksPath`
 * names) and notes the missing control files (each checkout's `commondir` and `config.worktree`).
 * Those that exist are protected paths, bound read-only by the plan. Outside a writable folder
 * nothing can be made anyway.
 */
export function gitControlDirs(dirs: GitDirs | null, worktree: string, writable: readonly string[]): GitControlPlan {
  if (dirs === null) return { readOnly: [], undo: () => [] };
  const set = gitControlSet(dirs, worktree);
  const folders = [...new Set(set.folders.map(realOnceMade))];
  const files = [...new Set(set.files.map(realOnceMade))];
  const readOnly: string[] = [];
  const madeDirs: string[] = [];
  for (const dir of folders) {
    if (!isInsideAny(writable, dir)) continue;
    if (!existsSync(dir)) {
      const first = mkdirSync(dir, { recursive: true, mode: 0o755 });
      // Every folder made on the way, outermost first, so the undo can take them away deepest first.
      if (first !== undefined)
        for (let d = dir; ; d = dirname(d)) {
          madeDirs.unshift(d);
          if (d === first || d === dirname(d)) break;
        }
    }
    readOnly.push(dir);
  }
  const missing = files.filter((f) => isInsideAny(writable, f) && !exists(f));
  // A control path that is itself a link (`.git/hooks -> ../.githooks`) has its target bound
  // read-only, but the link sits in the writable git folder: one replaced is put back at the end.
  const links = [...set.folders, ...set.files].flatMap((p): [string, string][] => (isInsideAny(writable, p) ? linkAt(p) : []));
  return {
    readOnly,
    undo(quarantine) {
      for (const d of [...madeDirs].reverse()) {
        try {
          rmdirSync(d);
        } catch {
          // Not empty (someone put files there outside the sandbox) or gone: leave it.
        }
      }
      const moved: [string, string][] = [];
      for (const f of missing) {
        if (!exists(f)) continue;
        // `commondir`, or `worktrees__x__commondir` for a linked worktree's: one flat folder.
        const to = join(quarantine, relative(realOnceMade(dirs.commonDir), f).replaceAll('/', '__'));
        mkdirSync(quarantine, { recursive: true, mode: 0o700 });
        renameOrKeep(f, to, moved);
      }
      for (const [link, target] of links) {
        if (linkAt(link)[0]?.[1] === target) continue;
        const to = join(quarantine, relative(realOnceMade(dirs.commonDir), link).replaceAll('/', '__'));
        mkdirSync(quarantine, { recursive: true, mode: 0o700 });
        if (exists(link)) renameOrKeep(link, to, moved);
        try {
          symlinkSync(target, link);
        } catch {
          // Something is in its place still (it could not be moved): the scope check reports it.
        }
      }
      return moved;
    },
  };
}

/** `[[p, its target]]` when `p` is a symbolic link, else none. */
function linkAt(p: string): [string, string][] {
  try {
    return lstatSync(p).isSymbolicLink() ? [[p, readlinkSync(p)]] : [];
  } catch {
    return [];
  }
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Moves `from` to `to`, copying across file systems (the state folder may lie on another). */
function renameOrKeep(from: string, to: string, moved: [string, string][]): void {
  try {
    try {
      renameSync(from, to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
      rmSync(from, { recursive: true, force: true });
    }
    moved.push([from, to]);
  } catch {
    // Could not be moved: it stays, and the end-of-session check has reported it.
  }
}
