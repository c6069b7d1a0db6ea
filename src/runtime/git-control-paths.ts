// The one list of a repository's git control files and folders: what the write gate protects,
// what the sandbox binds read-only (or moves aside once made), and what the scope check compares.
// Every checkout of the repository counts: another worktree's `commondir` redirects its git too.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where git keeps a repository's control folders and files, absolute. */
export interface GitDirs {
  gitDir: string;
  commonDir: string;
  hooksDir: string;
}

/** A repository's control files and control folders (everything below a folder counts). */
export interface GitControlSet {
  /**
   * Files git reads its settings or its git folder from: each checkout's `config.worktree` and
   * `commondir` (one planted in any checkout moves where its git reads config and hooks from),
   * the shared `config`, and the worktree's `.git` pointer file when it is one.
   */
  files: string[];
  /** Folders whose files git runs or obeys: hooks (and `core.hooksPath`), each checkout's info/, and the submodules' git folders. */
  folders: string[];
}

/** The admin folders of the repository's linked worktrees (`<common>/worktrees/*`), now. */
function linkedGitDirs(commonDir: string): string[] {
  try {
    return readdirSync(join(commonDir, 'worktrees')).map((name) => join(commonDir, 'worktrees', name));
  } catch {
    return [];
  }
}

/**
 * Every control path of the repository `dirs` names, for the checkout at `worktree`: as git
 * reports them (real paths), without duplicates.
 * @example gitControlSet({ gitDir: '/r/.git', commonDir: '/r/.git', hooksDir: '/r/.git/hooks' }, '/r').files // ['/r/.git/config', …]
 */
export function gitControlSet(dirs: GitDirs, worktree: string): GitControlSet {
  const checkouts = [...new Set([dirs.commonDir, dirs.gitDir, ...linkedGitDirs(dirs.commonDir)])];
  const pointer = join(worktree, '.git');
  let pointerIsFile = false;
  try {
    pointerIsFile = lstatSync(pointer).isFile();
  } catch {
    // No .git at the top of the worktree: nothing to add.
  }
  return {
    files: [
      ...new Set([join(dirs.commonDir, 'config'), join(dirs.gitDir, 'config'), ...checkouts.flatMap((d) => [join(d, 'config.worktree'), join(d, 'commondir')]), ...(pointerIsFile ? [pointer] : [])]),
    ],
    folders: [...new Set([join(dirs.commonDir, 'hooks'), dirs.hooksDir, join(dirs.commonDir, 'modules'), ...checkouts.map((d) => join(d, 'info'))])],
  };
}
