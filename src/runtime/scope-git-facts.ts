// What the scope baseline asks git, once, at session start: where the repository is,
// what is tracked and committed, and which ignore rules are in force. Never at check time.
import { readRegularText } from './small-file.js';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { EXCLUDES_FILE, INFO_EXCLUDE, type RuleSource } from './scope-ignore.js';
import { safeGit as run } from './safe-git.js';
import { pathOf } from './scope-walk.js';

/** The facts about a git worktree that the baseline keeps or derives from. */
export interface GitFacts {
  /** Absolute paths of the repository's top level, its git dir and its common dir. */
  top: string;
  gitdir: string;
  commondir: string;
  /** The worktree's folder relative to `top`, `''` when it is the top. */
  prefix: string;
  /** The repository's object hash: `sha1` or `sha256`. */
  algo: string;
  /** True when the repository ignores the worktree folder itself (then nothing is tracked or ruled). */
  ignored: boolean;
  /**
   * Index entries under the worktree (worktree-relative), submodules left out: `"<mode>
   * <oid> 0"`, or `''` for a conflicted path (several stages, no one content).
   */
  index: Map<string, string>;
  /** Whether HEAD names a commit (false before the first one). */
  hasHead: boolean;
  /** The commit HEAD named (null before the first one): `git checkout <it> -- p` restores a file whatever was staged or committed since. */
  head: string | null;
  /** Paths whose index entry differs from HEAD (staged changes): `git checkout` would not bring back HEAD. */
  staged: Set<string>;
  /** Rule sources in force other than the worktree's own `.gitignore` files. */
  rules: RuleSource[];
  /** `core.ignoreCase`, which makes git's ignore matching case-insensitive. */
  ignoreCase: boolean;
  /** The folder `core.hooksPath` names (absolute), or null when git uses `<commondir>/hooks`. */
  hooksPath: string | null;
}

/** The index mode of a submodule entry (a commit of another repository, not a file). */
const GITLINK_MODE = '160000';

/** The facts for `cwd`, or null when it is not inside a git work tree (or git is missing). */
export async function gitFacts(cwd: string): Promise<GitFacts | null> {
  const probe = await run(cwd, ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--absolute-git-dir', '--git-common-dir', '--show-object-format', '--show-prefix']);
  const [inside, top, gitdir, common, algo, prefix] = probe.stdout.toString('utf8').split('\n');
  if (probe.code !== 0 || inside !== 'true' || !top || !gitdir || !common || !algo || prefix === undefined) return null;
  const commondir = resolve(cwd, common);
  const wtPrefix = prefix.replace(/\/$/, '');
  const [verify, ignoredRun, excludesPath, ignoreCase, hooksPath] = await Promise.all([
    run(cwd, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']),
    wtPrefix === '' ? Promise.resolve(null) : run(cwd, ['check-ignore', '-q', '.']),
    run(cwd, ['config', '--path', '--get', 'core.excludesFile']),
    run(cwd, ['config', '--bool', '--get', 'core.ignoreCase']),
    // Asked without the hooksPath override, which git would echo back; reading runs nothing.
    run(cwd, ['config', '--path', '--get', 'core.hooksPath'], { readHooksPath: true }),
  ]);
  if (ignoredRun !== null && ignoredRun.code > 1) throw new Error(`git check-ignore failed in ${cwd} (exit ${ignoredRun.code}): ${ignoredRun.stderr.trim()}`);
  const facts: GitFacts = {
    top,
    gitdir,
    commondir,
    prefix: wtPrefix,
    algo,
    ignored: ignoredRun?.code === 0,
    index: new Map(),
    hasHead: false,
    head: null,
    staged: new Set(),
    rules: [],
    ignoreCase: ignoreCase.code === 0 && ignoreCase.stdout.toString('utf8').trim() === 'true',
    hooksPath: hooksDir(top, commondir, hooksPath.code === 0 ? hooksPath.stdout.toString('utf8').trim() : ''),
  };
  if (facts.ignored) return facts;
  facts.hasHead = verify.code === 0;
  facts.head = facts.hasHead ? verify.stdout.toString('utf8').trim() : null;
  // The index against HEAD only: neither command looks at the worktree, so no filter runs.
  const [index, staged] = await Promise.all([
    git(cwd, ['ls-files', '-s', '-z']),
    facts.hasHead ? git(cwd, ['diff-index', '--cached', '--relative', '--ignore-submodules=all', '--name-only', '--no-renames', '-z', 'HEAD']) : Buffer.alloc(0),
  ]);
  for (const [meta, rel] of entries(index, '\t')) {
    if (meta.startsWith(GITLINK_MODE)) continue; // a submodule: its files are walked as the folder's own
    facts.index.set(rel, meta.endsWith(' 0') && !facts.index.has(rel) ? meta : '');
  }
  for (const [, rel] of entries(staged, null)) facts.staged.add(rel);
  facts.rules = ruleSources(top, wtPrefix, commondir, excludesPath.code === 0 ? excludesPath.stdout.toString('utf8').trim() : null);
  return facts;
}

/**
 * Where git looks for hooks when `core.hooksPath` is set: relative to the top level,
 * where hooks run. Null when unset, `/dev/null`, or the default folder anyway.
 */
function hooksDir(top: string, commondir: string, value: string): string | null {
  if (value === '' || value === '/dev/null') return null;
  const dir = resolve(top, value);
  // A folder holding the whole worktree is walked as the worktree: never a second time.
  const fromDir = relative(dir, top);
  const holdsTop = fromDir === '' || (!fromDir.startsWith('..') && !isAbsolute(fromDir));
  return dir === join(commondir, 'hooks') || holdsTop ? null : dir;
}

/**
 * The rule texts in force above the worktree: each `.gitignore` from the top level down
 * to the worktree's parent, `info/exclude`, and `core.excludesFile` as git resolves it
 * (its default `$XDG_CONFIG_HOME/git/ignore` when unset).
 */
function ruleSources(top: string, prefix: string, commondir: string, excludesFile: string | null): RuleSource[] {
  const sources: RuleSource[] = [];
  const parts = prefix === '' ? [] : prefix.split('/');
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const text = readRegular(join(top, dir, '.gitignore'));
    if (text !== null) sources.push([dir, text]);
  }
  const info = readAny(join(commondir, 'info', 'exclude'));
  if (info !== null) sources.push([INFO_EXCLUDE, info]);
  const xdg = process.env.XDG_CONFIG_HOME || join(process.env.HOME || homedir(), '.config');
  const global = readAny(excludesFile ?? join(xdg, 'git', 'ignore'));
  if (global !== null) sources.push([EXCLUDES_FILE, global]);
  return sources;
}

/**
 * A `.gitignore`'s text; git does not follow one that is a symlink. Opened without blocking and
 * then checked, so a FIFO the agent puts there (or swaps in after a check) cannot hang the hook.
 */
export function readRegular(path: string): string | null {
  try {
    return readRegularText(path, { followLink: false });
  } catch {
    return null;
  }
}

/** An excludes file's text (a link followed, as git does); null for anything not a regular file. */
function readAny(path: string): string | null {
  try {
    return readRegularText(path);
  } catch {
    return null;
  }
}

async function git(cwd: string, args: string[]): Promise<Buffer> {
  const r = await run(cwd, args);
  if (r.code !== 0) throw new Error(`git ${args.slice(0, 2).join(' ')} failed in ${cwd} (exit ${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * Records of a `-z` listing as `[meta, path]`, split at the first `sep` (none: the record
 * is the path), the path read as the walk reads names. The whole output is decoded at
 * once when it is valid UTF-8 (nearly always); otherwise each path byte by byte.
 */
function entries(out: Buffer, sep: '\t' | null): [string, string][] {
  const text = out.toString('utf8');
  const recs: [string, string][] = [];
  if (Buffer.from(text, 'utf8').equals(out)) {
    for (const r of text.split('\0')) {
      if (r === '') continue;
      const cut = sep === null ? -1 : r.indexOf(sep);
      recs.push([r.slice(0, Math.max(cut, 0)), r.slice(cut + 1)]);
    }
    return recs;
  }
  let start = 0;
  for (let i = out.indexOf(0); i !== -1; i = out.indexOf(0, start)) {
    const rec = out.subarray(start, i);
    const cut = sep === null ? -1 : rec.indexOf(0x09);
    if (rec.length > 0) recs.push([rec.subarray(0, Math.max(cut, 0)).toString('utf8'), pathOf(rec.subarray(cut + 1))]);
    start = i + 1;
  }
  return recs;
}
