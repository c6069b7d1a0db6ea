// The hook's one-path question: does this path already differ from the baseline? Sync
// and bounded, so a refusal can let the way back (restoring a changed file) through.
import type { BigIntStats } from 'node:fs';
import { realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { assertBaseline, realPath, type Baseline, type FileRecord } from './scope-baseline.js';
import { differsSync, foldersOf } from './scope-compare.js';
import { isControlPath, relPath } from './scope-control.js';
import { FrozenIgnore } from './scope-ignore.js';
import { lstatOrNull } from './small-file.js';

/** What the probe needs of a baseline, built once per baseline object. */
interface Lookup {
  files: Map<string, FileRecord>;
  dirs: Set<string>;
  control: Map<string, FileRecord>;
  ignore: FrozenIgnore | null;
}

const lookups = new WeakMap<Baseline, Lookup>();

/**
 * True when `absPath` is in the baseline's scope and its content, mode or type now
 * differs (created, modified or deleted since); false when it is unchanged or not in
 * scope at all (ignored at baseline, reached through a symlinked folder, inside `.git`).
 * Reads at most one file, up to the hash cap.
 * @example if (differsFromBaseline(wt, baseline, '/src/app/.git/config')) allowRestore()
 */
export function differsFromBaseline(worktree: string, baseline: Baseline, absPath: string): boolean {
  assertBaseline(baseline);
  const root = realPath(worktree);
  const abs = resolve(absPath);
  const rel = relPath(root, abs);
  if (rel === '') return false;
  const look = lookupOf(baseline);
  let st: BigIntStats | null;
  try {
    st = lstatOrNull(abs);
  } catch {
    return false; // cannot look (no permission): nor can a write
  }
  const ctl = look.control.get(rel);
  if (ctl !== undefined) return st === null || differsSync(ctl, abs, st);
  if (baseline.git !== null && isControlPath(abs, baseline.git, root)) return st !== null && !st.isDirectory();
  if (baseline.watch?.paths.some((w) => abs === w || abs.startsWith(`${w}/`))) return st !== null && !st.isDirectory();
  if (rel === '..' || rel.startsWith('../') || rel.split('/').includes('.git')) return false;
  if (!parentIsReal(root, abs, rel)) return false;
  const rec = look.files.get(rel);
  if (rec !== undefined) {
    if (rec[1] === null) return st !== null && !st.isDirectory();
    return st === null || differsSync(rec, abs, st);
  }
  if (st === null || st.isDirectory()) return false;
  if (look.ignore === null) return true;
  const parts = rel.split('/');
  let under = false;
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    if (under || look.ignore.ignores(dir, true)) {
      if (!look.dirs.has(dir)) return false;
      under = true;
    }
  }
  return !(under || look.ignore.ignores(rel, false));
}

function lookupOf(baseline: Baseline): Lookup {
  let look = lookups.get(baseline);
  if (look === undefined) {
    const git = baseline.git;
    look = {
      files: new Map(baseline.files.map((r) => [r[0], r])),
      dirs: foldersOf(baseline.files.map((r) => r[0])),
      // Watched files outside the worktree are compared the same way as control files.
      control: new Map([...(git?.control ?? []), ...(baseline.watch?.files ?? [])].map((r) => [r[0], r])),
      ignore: git?.rules ? new FrozenIgnore(git.rules, git.prefix, git.ignore_case) : null,
    };
    lookups.set(baseline, look);
  }
  return look;
}

/** Whether the folders on the way to `abs` are real folders, not symlinks the walk would not follow. */
function parentIsReal(root: string, abs: string, rel: string): boolean {
  if (!rel.includes('/')) return true;
  try {
    return realpathSync(dirname(abs)) === join(root, dirname(rel));
  } catch {
    return true; // the folder is gone: nothing can be at `abs`
  }
}
