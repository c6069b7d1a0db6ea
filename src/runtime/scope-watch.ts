// Files outside the worktree that can run code in any repository later (git's user config:
// hooksPath, fsmonitor, filters) or change how Gatehouse gates (its user config): the scope
// check compares them with the baseline like the repository's control files.
import type { Change, FileRecord } from './scope-baseline.js';
import { compareFound, recordFound, relPath, walkAll, type Found } from './scope-control.js';
import { lstatOrNull } from './small-file.js';

/** What the baseline keeps of the watched paths outside the worktree. */
export interface WatchBaseline {
  /** Absolute files or folders watched. */
  paths: string[];
  files: FileRecord[];
  /** The text of each small file, for the refusal's hint; empty in a session's stored baseline, which keeps them apart. */
  text: [string, string][];
}

/** Calls `found` for every file now at or under a watched path, with its path relative to `root` (`../…`). */
async function eachWatched(root: string, paths: string[], found: Found, deadline?: number): Promise<void> {
  for (const abs of paths) {
    const st = lstatOrNull(abs);
    if (st === null) continue;
    if (st.isDirectory()) await walkAll(relPath(root, abs), abs, found, deadline);
    else await found(relPath(root, abs), abs, st);
  }
}

/** Records the watched paths as they are now. */
export async function recordWatch(root: string, paths: string[]): Promise<WatchBaseline> {
  const { files, text } = await recordFound((found) => eachWatched(root, paths, found));
  return { paths, files, text };
}

/** Every watched file created, modified or deleted since the baseline. */
export function compareWatch(root: string, watch: WatchBaseline, deadline?: number): Promise<Change[]> {
  return compareFound((found) => eachWatched(root, watch.paths, found, deadline), watch.files, deadline);
}
