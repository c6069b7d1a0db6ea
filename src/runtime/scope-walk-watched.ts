// The scope check's walk for a long-lived host with a worktree watch: it visits exactly what
// `walk` would, but reads again only what inotify named since the last Stop.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { checkDeadline, type FsPath } from './scope-hash.js';
import { childPath, ITEMS_PER_TURN, list, statKey, type OnUnreadable, type Visit, type WalkEntry } from './scope-walk.js';
import { lstatOrNull } from './small-file.js';
import type { WalkPlan, WorktreeWatch } from './worktree-watch.js';

/** Kept entries visited between yields: each costs no system call, so many more than {@link ITEMS_PER_TURN}. */
const KEPT_PER_TURN = 20 * ITEMS_PER_TURN;

/**
 * A record of what the visits did, folder by folder (scope-journal.ts): a folder that neither it
 * nor anything below it was named by an event since the last walk is replayed, not walked.
 */
export interface WalkJournal {
  begin(full: boolean): void;
  abort(): void;
  enter(rel: string, parent: string | null): void;
  replay(rel: string, parent: string | null): boolean;
}

/**
 * Walks everything below `root` as `walk` does (same entries, same order, same contract),
 * from the listings and lstats `watch` kept where no event has named them since; with a
 * `journal`, a folder with nothing named in or below it is not walked at all, but replayed.
 * Without a plan (the watch is off) it reads everything and keeps nothing.
 */
export async function walkWatched(root: string, watch: WorktreeWatch, visit: Visit, onUnreadable: OnUnreadable, deadline?: number, journal?: WalkJournal): Promise<void> {
  const planned = watch.begin();
  const plan = planned ?? { dirty: new Set<string>(), relist: new Set<string>(), full: true };
  journal?.begin(plan.full);
  try {
    await walkPlanned(root, watch, plan, visit, onUnreadable, deadline, planned === null ? undefined : journal);
  } catch (err) {
    watch.putBack(plan); // stopped part-way (the deadline): what it had to read is read next time
    journal?.abort();
    throw err;
  }
  watch.end();
}

/** Every folder that holds (or is) an entry the plan reads again: the ones a journal must walk. */
function touchedBy(plan: WalkPlan): Set<string> {
  const touched = new Set<string>();
  const mark = (rel: string): void => {
    for (let r = rel; !touched.has(r);) {
      touched.add(r);
      if (r === '') return;
      const cut = r.lastIndexOf('/');
      r = cut === -1 ? '' : r.slice(0, cut);
    }
  };
  for (const rel of plan.dirty) mark(rel);
  for (const rel of plan.relist) mark(rel);
  return touched;
}

async function walkPlanned(root: string, watch: WorktreeWatch, plan: WalkPlan, visit: Visit, onUnreadable: OnUnreadable, deadline?: number, journal?: WalkJournal): Promise<void> {
  const touched = journal === undefined ? null : touchedBy(plan);
  if (watch.listing('') === undefined) watch.watchDir('', root);
  // An entry read now: watched first, so that any change after its lstat raises an event.
  const fresh = (rel: string, parent: string, name: string, abs: FsPath): WalkEntry | null => {
    watch.watch(rel, abs);
    const st = lstatOrNull(abs); // null: removed while we walked
    if (st === null) return null;
    if (watch.sameFs(rel, st) && st.isDirectory()) watch.watchDir(rel, abs);
    return { rel, parent, name, abs, st, key: statKey(st) };
  };
  const stack: { rel: string; abs: FsPath; parent: string | null }[] = [{ rel: '', abs: root, parent: null }];
  let cost = 0;
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    const kept = watch.listing(dir.rel);
    if (kept !== undefined && touched !== null && !touched.has(dir.rel) && journal!.replay(dir.rel, dir.parent)) continue;
    journal?.enter(dir.rel, dir.parent);
    let entries: WalkEntry[];
    // A folder named itself (its mode, say) is listed again: it may no longer be readable.
    if (kept === undefined || plan.relist.has(dir.rel) || plan.dirty.has(dir.rel)) {
      const listed = list(dir.abs);
      if (listed === null) {
        const st = lstatOrNull(dir.abs);
        if (st !== null && dir.rel !== '') await onUnreadable(dir.rel, dir.abs, st);
        continue;
      }
      // A name listed before and named by no event is the same entry: any change to it would have raised one.
      const before = kept === undefined ? null : new Map(kept.map((e) => [e.name, e]));
      entries = [];
      for (const child of listed) {
        checkDeadline(deadline);
        const rel = dir.rel === '' ? child.name : `${dir.rel}/${child.name}`;
        const old = before?.get(child.name);
        const e = old !== undefined && !plan.dirty.has(rel) ? old : fresh(rel, dir.rel, child.name, childPath(dir.abs, child));
        if (e !== null) entries.push(e);
      }
      cost += listed.length * KEPT_PER_TURN;
    } else {
      entries = [];
      for (const old of kept) {
        if (!plan.dirty.has(old.rel)) {
          entries.push(old);
          cost += ITEMS_PER_TURN;
          continue;
        }
        checkDeadline(deadline);
        const e = fresh(old.rel, old.parent, old.name, old.abs);
        cost += KEPT_PER_TURN;
        if (e !== null) entries.push(e);
      }
    }
    watch.store(dir.rel, dir.parent, entries);
    const into: { rel: string; abs: FsPath; parent: string }[] = [];
    for (const e of entries) {
      const r = visit(e);
      const descend = typeof r === 'boolean' ? r : await r;
      if (descend && e.st.isDirectory()) into.push({ rel: e.rel, abs: e.abs, parent: dir.rel });
    }
    for (let i = into.length - 1; i >= 0; i--) stack.push(into[i]!); // first subfolder on top
    if (cost >= ITEMS_PER_TURN * KEPT_PER_TURN) {
      cost = 0;
      await nextTurn();
    }
  }
}
