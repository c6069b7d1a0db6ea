// What one watched comparison did, folder by folder, so that the next one can do it again for a
// folder that no inotify event has touched since, without visiting what lies below it.
import type { Change } from './scope-baseline.js';

/** The state one comparison builds (scope-compare.ts's compareTree), which a replay fills as its visits did. */
export interface CompareState {
  seen: Uint8Array;
  changes: Change[];
  ignoredDirs: Set<string>;
  dotGitThen: Map<string, string>;
}

/** One effect of a visit on {@link CompareState} (besides marking a record seen): a change found, a folder ignored, a `.git` met. */
export type Op = { change: Change } | { ignored: string } | { dotGit: string };

/** Does `op` to `s`: the one place each effect is defined, for visits and replays alike. */
export function applyOp(op: Op, s: CompareState): void {
  if ('change' in op) s.changes.push(op.change);
  else if ('ignored' in op) s.ignoredDirs.add(op.ignored);
  else s.dotGitThen.delete(op.dotGit);
}

interface FolderNode {
  rel: string;
  seen: number[];
  ops: Op[];
  kids: FolderNode[];
}

/**
 * The record of the last watched comparison of one worktree. Sound only as walkWatched uses it:
 * a folder is replayed only when the walk before this one completed, the watch has kept its
 * listing, and no event has named it or anything below it since; then every visit below it
 * would see the same entries with the same lstat keys and do exactly what it did then.
 */
export class CompareJournal {
  /** Folders replayed instead of walked, over its life: for tests and diagnostics. */
  replayed = 0;
  private prev = new Map<string, FolderNode>();
  private nodes = new Map<string, FolderNode>();
  private current: FolderNode | null = null;
  private state: CompareState | null = null;

  /** The state of the comparison about to walk: replays fill it (the caller applies what it records). */
  into(state: CompareState): void {
    this.state = state;
  }

  /** Starts recording a walk; `full`: the watch kept nothing, so nothing recorded before is replayed. */
  begin(full: boolean): void {
    this.prev = full ? new Map() : this.nodes;
    this.nodes = new Map();
    this.current = null;
  }

  /** Forgets everything: the comparison stopped part-way. */
  abort(): void {
    this.prev = new Map();
    this.nodes = new Map();
    this.current = null;
  }

  /** Folder `rel` (under `parent`, null for the root) is walked now: what its entries do is recorded as its own. */
  enter(rel: string, parent: string | null): void {
    const node: FolderNode = { rel, seen: [], ops: [], kids: [] };
    this.attach(node, parent);
    this.current = node;
  }

  /** Does again, below folder `rel`, what the last comparison did there; false if it has no record of it. */
  replay(rel: string, parent: string | null): boolean {
    const node = this.prev.get(rel);
    if (node === undefined || this.state === null) return false;
    this.attach(node, parent);
    this.apply(node, this.state);
    this.replayed++;
    return true;
  }

  /** Records that the record with index `i` was met. */
  see(i: number): void {
    this.current?.seen.push(i);
  }

  /** Records an effect of the current folder's visits (already applied by the caller with {@link applyOp}). */
  op(op: Op): void {
    this.current?.ops.push(op);
  }

  private attach(node: FolderNode, parent: string | null): void {
    this.nodes.set(node.rel, node);
    if (parent !== null) this.nodes.get(parent)?.kids.push(node);
  }

  private apply(node: FolderNode, s: CompareState): void {
    for (const i of node.seen) s.seen[i] = 1;
    for (const op of node.ops) applyOp(op, s);
    for (const kid of node.kids) {
      this.nodes.set(kid.rel, kid);
      this.apply(kid, s);
    }
  }
}
