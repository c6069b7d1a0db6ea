// The git control paths a sandbox must keep the agent from making. Commits need the git folder
// writable, so a control folder the repository lacks (a planted `.git/hooks/pre-commit` runs at
// your next commit) is made empty for the session and bound read-only; a control *file* cannot
// be kept from being made that way (git reads any file at `commondir`, an empty one included),
// so one the agent made is moved aside when the session is over.
import { cpSync, existsSync, lstatSync, mkdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isInsideAny } from '../../core/path-inside.js';
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

/** Where git keeps a repository's control folders and files. */
export interface GitDirs {
  gitDir: string;
  commonDir: string;
  hooksDir: string;
}

/** The real path `p` has, or will have once made (links on the way followed); `p` itself when it cannot be resolved. */
function realOnceMade(p: string): string {
  const real = resolveWriteTarget(p, '/');
  return real.ok ? real.value : p;
}

/**
 * Plans the control paths inside `writable` folders: makes the missing control folders (hooks/,
 * info/, modules/, the folder `core.hooksPath` names) and notes the missing control files
 * (`commondir`, `config.worktree`). Outside a writable folder nothing can be made anyway.
 */
export function gitControlDirs(dirs: GitDirs | null, writable: readonly string[]): GitControlPlan {
  if (dirs === null) return { readOnly: [], undo: () => [] };
  const folders = [...new Set([join(dirs.commonDir, 'hooks'), join(dirs.commonDir, 'info'), join(dirs.gitDir, 'info'), join(dirs.commonDir, 'modules'), dirs.hooksDir].map(realOnceMade))];
  const files = [...new Set([join(dirs.gitDir, 'commondir'), join(dirs.gitDir, 'config.worktree'), join(dirs.commonDir, 'config.worktree')].map(realOnceMade))];
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
      return moved;
    },
  };
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
