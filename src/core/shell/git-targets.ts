// The files git commands write in the worktree: `checkout`/`restore` (marked as restores when they
// put back the committed content, the way back), `rm`, `mv` and `--output`; and git's global options.
import type { Word } from './ast.js';
import { hasOption, optionValues, parseArgs, type ParsedArgs } from './command-line.js';
import { target, type FoundTarget, type WriteTarget } from './write-target.js';

/** git global options that take a value (`git -C dir status`). */
const GIT_GLOBAL_WITH_VALUE = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path'];

/** `-C a -C b` is `-C a/b` (or `-C b` when b is absolute). */
function joinDir(a: Word, b: Word): Word {
  if (b.value.startsWith('/')) return b;
  const join = (x: string, y: string): string => `${x.replace(/\/+$/, '')}/${y}`;
  return {
    text: join(a.text, b.text),
    value: join(a.value, b.value),
    literal: a.literal && b.literal,
    splits: a.splits || b.splits,
    evaluates: a.evaluates || b.evaluates,
    subs: [...a.subs, ...b.subs],
  };
}

/** Splits `git [global options] SUBCOMMAND ARGS`; `dir` is the `-C` folder and `gitDir` the `--git-dir`, if given. */
export function gitCommand(args: readonly Word[]): { sub: string | null; rest: Word[]; dir: Word | null; gitDir: Word | null; globals: string[] } {
  let dir: Word | null = null;
  let gitDir: Word | null = null;
  const globals: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (!v.startsWith('-')) break;
    const name = v.split('=')[0]!;
    globals.push(name);
    if (name === '--git-dir' && v.includes('=')) gitDir = { ...w, text: w.text.slice(w.text.indexOf('=') + 1), value: v.slice(v.indexOf('=') + 1) };
    if (GIT_GLOBAL_WITH_VALUE.includes(v) && i + 1 < args.length) {
      if (v === '-C') dir = dir === null ? args[i + 1]! : joinDir(dir, args[i + 1]!);
      if (v === '--git-dir') gitDir = args[i + 1]!;
      i++;
    }
  }
  const sub = args[i];
  return { sub: sub ? (sub.literal ? sub.value : sub.text) : null, rest: args.slice(i + 1), dir, gitDir, globals };
}

/** The way back that stays clear of the supervisor's files. */
const RESTORE_BY_NAME = "restore the changed files by name (`git checkout -- PATH`), leaving the supervisor's own files out";

/** `git clone` options that take a value. */
const CLONE_SPEC = {
  shortWithValue: 'bcjou',
  longWithValue: [
    '--branch',
    '--config',
    '--depth',
    '--filter',
    '--jobs',
    '--origin',
    '--reference',
    '--reference-if-able',
    '--separate-git-dir',
    '--shallow-exclude',
    '--shallow-since',
    '--template',
    '--upload-pack',
    '--server-option',
    '--bundle-uri',
    '--ref-format',
  ],
};

/** Names of the commit a restore may take content from and still be the way back. */
const HEAD_NAMES = new Set(['HEAD', '@']);

/** Options that make `git checkout`/`git restore` write something other than the committed content. */
const NOT_A_RESTORE = ['-p', '--patch', '--ours', '--theirs', '-m', '--merge', '--conflict', '--overlay'];

/** `git checkout` options that take a value. */
const CHECKOUT_SPEC = { shortWithValue: 'bB', longWithValue: ['--orphan', '--conflict', '--pathspec-from-file', '--track'] };

/**
 * A pathspec as a word whose expansion covers what git matches: git's wildcards cross `/`, so a
 * pathspec with one stands for everything under its literal folder; magic (`:(glob)`, `:/`) for anything.
 */
function pathspecWord(w: Word): Word {
  if (!w.literal || !/^:|[*?[]/.test(w.value)) return w;
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const head = w.value.startsWith(':') ? null : w.value.slice(0, w.value.search(/[*?[]/));
  const folder = head === null ? null : head.slice(0, head.lastIndexOf('/') + 1);
  const text = folder === null ? '"$(pathspec magic)"' : `${folder === '' ? '' : quote(folder)}**`;
  return { text, value: w.value, literal: false, splits: false, evaluates: false, subs: [] };
}

/** Paths written by `git checkout [TREE] [--] PATHS`; a restore when the content comes from HEAD or the index. */
function checkoutTargets(rest: Word[], at: (w: Word, via: string, restore: boolean) => FoundTarget): FoundTarget[] {
  const dash = rest.findIndex((w) => w.value === '--');
  const parsed = parseArgs(dash === -1 ? rest : rest.slice(0, dash), CHECKOUT_SPEC);
  // Making or switching branches (-b, -c, --orphan, --detach) names no paths.
  if (hasOption(parsed, '-b', '-B', '--orphan', '--detach')) return [];
  let tree = dash === -1 ? null : (parsed.positionals[0] ?? null);
  let paths = dash === -1 ? parsed.positionals : rest.slice(dash + 1);
  // Without `--`, a first word that is HEAD is the commit, and one word alone may be a branch or a path: it is reported as a path.
  if (dash === -1 && paths.length > 1 && HEAD_NAMES.has(paths[0]!.value)) [tree, paths] = [paths[0]!, paths.slice(1)];
  else if (dash === -1 && paths.length > 1) tree = paths[0]!;
  const restore = (tree === null || HEAD_NAMES.has(tree.value)) && !hasOption(parsed, ...NOT_A_RESTORE);
  const via = dash === -1 ? 'git checkout' : 'git checkout --';
  return [...paths.map((w) => at(w, via, restore)), ...fromFile(parsed, (w) => at(w, via, false))];
}

/** Paths written by `git restore`; a restore unless it takes content from another commit. */
function restoreTargets(rest: Word[], at: (w: Word, via: string, restore: boolean) => FoundTarget): FoundTarget[] {
  const parsed = parseArgs(rest, { shortWithValue: 's', longWithValue: ['--source', '--pathspec-from-file', '--conflict'] });
  const worktree = !hasOption(parsed, '-S', '--staged') || hasOption(parsed, '-W', '--worktree');
  if (!worktree) return [];
  const source = optionValues(parsed, '-s', '--source');
  const restore = source.every((s) => HEAD_NAMES.has(s.value)) && !hasOption(parsed, ...NOT_A_RESTORE);
  return [...parsed.positionals.map((w) => at(w, 'git restore', restore)), ...fromFile(parsed, (w) => at(w, 'git restore', false))];
}

/** `--pathspec-from-file`: the paths are in a file Gatehouse does not read, so they can be anything. */
function fromFile(parsed: ParsedArgs, at: (w: Word) => FoundTarget): FoundTarget[] {
  if (!hasOption(parsed, '--pathspec-from-file')) return [];
  return [at({ text: '"$(pathspec-from-file)"', value: '$(pathspec-from-file)', literal: false, splits: false, evaluates: false, subs: [] })];
}

/** The worktree files a git command writes (its control files are in git-config-targets.ts). */
export function gitTargets(args: Word[]): FoundTarget[] {
  const { sub, rest, dir } = gitCommand(args);
  // Judged by what the pathspec can match, shown as written.
  const at = (w: Word, via: string, kind: WriteTarget['kind'], recursive: boolean): FoundTarget => ({
    ...target(pathspecWord(w), via, kind, recursive, dir),
    path: target(w, via, kind, recursive, dir).path,
  });
  const restoring = (w: Word, via: string, restore: boolean): FoundTarget => ({ ...at(w, via, 'write', true), ...(restore ? { restore: true } : {}), instead: RESTORE_BY_NAME });
  if (sub === 'checkout') return checkoutTargets(rest, restoring);
  if (sub === 'restore') return restoreTargets(rest, restoring);
  const out: FoundTarget[] = [];
  if (sub === 'clone') {
    const parsed = parseArgs(rest, CLONE_SPEC);
    const [url, folder] = parsed.positionals;
    // Without a folder, git names it after the repository: the URL's last part without `.git`.
    const named =
      folder ??
      (url?.literal
        ? {
            ...url,
            value: url.value
              .replace(/\/+$/, '')
              .replace(/^.*[/:]/, '')
              .replace(/\.git$/, ''),
          }
        : url);
    if (named) out.push(at(named, 'git clone', 'create', true));
  } else if (sub === 'worktree' && rest[0]?.value === 'add') {
    const folder = parseArgs(rest.slice(1), { shortWithValue: 'bB', longWithValue: ['--reason'] }).positionals[0];
    if (folder) out.push(at(folder, 'git worktree add', 'create', true));
  } else if (sub === 'rm') {
    const parsed = parseArgs(rest, { longWithValue: ['--pathspec-from-file'] });
    if (!hasOption(parsed, '--cached')) out.push(...parsed.positionals.map((w) => at(w, 'git rm', 'delete', hasOption(parsed, '-r'))));
  } else if (sub === 'mv') {
    const files = parseArgs(rest, {}).positionals;
    if (files.length >= 2) {
      out.push(...files.slice(0, -1).map((w) => at(w, 'git mv', 'delete', true)));
      out.push(at(files[files.length - 1]!, 'git mv', 'write', false));
    }
  }
  if (sub !== null && ['diff', 'log', 'show', 'format-patch', 'range-diff'].includes(sub)) {
    const parsed = parseArgs(rest, { longWithValue: ['--output'] });
    out.push(...optionValues(parsed, '--output').map((w) => target(w, `git ${sub} --output`, 'write', false, dir)));
  }
  return out;
}
