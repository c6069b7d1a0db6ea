// Git's ignore rules as they stood at the baseline, evaluated with git's precedence from
// the frozen rule texts: an ignore file written during the session changes nothing.
import ignore from 'ignore';
import type { Ignore } from 'ignore';

/** Source key of `$GIT_COMMON_DIR/info/exclude` in a {@link RuleSource}. */
export const INFO_EXCLUDE = ':info/exclude';
/** Source key of the file `core.excludesFile` named (or git's default) at baseline. */
export const EXCLUDES_FILE = ':core.excludesFile';

/**
 * One rule source: `[where, text]`. `where` is the folder of a `.gitignore`, relative to
 * the repository's top level (`''` for the top), or {@link INFO_EXCLUDE} / {@link EXCLUDES_FILE}.
 */
export type RuleSource = [string, string];

/**
 * Answers "does git ignore this path?" for paths met top-down by a walk, so a path is
 * asked about only when its parent folder is not ignored (git never re-includes below an
 * excluded folder). Precedence as in git: a deeper `.gitignore` over a shallower one,
 * any `.gitignore` over `info/exclude` over `core.excludesFile`; within one source the
 * last matching pattern wins, and the first source with a match decides.
 */
export class FrozenIgnore {
  private readonly perDir = new Map<string, Ignore>();
  private readonly shared: [string, Ignore][] = [];
  private readonly ownCache = new Map<string, Ignore>();

  /** `prefix`: the worktree's folder relative to the repository's top level (`''` when it is the top). */
  constructor(
    sources: RuleSource[],
    private readonly prefix: string,
    private readonly ignoreCase: boolean,
  ) {
    for (const s of sources) this.add(s);
  }

  /** Adds one source (the walk at baseline adds each `.gitignore` as it enters a folder). */
  add([where, text]: RuleSource): void {
    const rules = ignore({ ignorecase: this.ignoreCase }).add(text.replace(/^\uFEFF/, ''));
    if (where === INFO_EXCLUDE || where === EXCLUDES_FILE) {
      this.shared.push([where, rules]);
      this.shared.sort(([a], [b]) => (a === b ? 0 : a === INFO_EXCLUDE ? -1 : 1));
    } else this.perDir.set(where, rules);
  }

  /** Whether git ignores `rel` (relative to the worktree), a folder when `isDir`. */
  ignores(rel: string, isDir: boolean): boolean {
    const path = this.prefix === '' ? rel : `${this.prefix}/${rel}`;
    for (let cut = path.lastIndexOf('/'); ; cut = path.lastIndexOf('/', cut - 1)) {
      const dir = cut < 0 ? '' : path.slice(0, cut);
      const rules = this.perDir.get(dir);
      if (rules !== undefined) {
        const v = this.decide(rules, dir, dir === '' ? path : path.slice(dir.length + 1), isDir);
        if (v !== null) return v;
      }
      if (cut < 0) break;
    }
    for (const [where, rules] of this.shared) {
      const v = this.decide(rules, where, path, isDir);
      if (v !== null) return v;
    }
    return false;
  }

  /** This source's verdict on `p` (relative to it): true/false, or null when no pattern matches. */
  private decide(rules: Ignore, where: string, p: string, isDir: boolean): boolean | null {
    const q = isDir ? `${p}/` : p;
    const r = rules.test(q);
    if (r.unignored) return false;
    if (!r.ignored) return null;
    const cut = p.lastIndexOf('/');
    if (cut === -1 || !rules.test(`${p.slice(0, cut)}/`).ignored) return true;
    // `ignore` passes a parent folder's exclusion down, but this parent was re-included by
    // a source that weighs more (the walk reached it): judge `p` by its own patterns.
    const own = this.withParentsIncluded(rules, where, p.slice(0, cut));
    const r2 = own.test(q);
    return r2.unignored ? false : r2.ignored ? true : null;
  }

  /** `rules` plus anchored re-includes of `parent` and each folder above it. */
  private withParentsIncluded(rules: Ignore, where: string, parent: string): Ignore {
    const key = `${where}\0${parent}`;
    let own = this.ownCache.get(key);
    if (own === undefined) {
      const parts = parent.split('/');
      const includes = parts.map(
        (_, i) =>
          `!/${parts
            .slice(0, i + 1)
            .map(literal)
            .join('/')}/`,
      );
      own = ignore({ ignorecase: this.ignoreCase }).add(rules).add(includes);
      this.ownCache.set(key, own);
    }
    return own;
  }
}

/** A path component as a gitignore pattern that matches only itself. */
function literal(name: string): string {
  return name.replace(/[\\*?[\]]/g, '\\$&');
}
