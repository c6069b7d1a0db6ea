// The approve list: commands that only read, run without review when they have no dangerous
// flag. A command passes only if it is named here and its own check finds nothing to fear.
import type { Word } from './ast.js';
import { commandName, hasOption, parseArgs } from './command-line.js';
import { gitCommand } from './git-targets.js';

/** A check on a listed command's arguments: a reason it needs review, or null. */
type ArgCheck = (args: Word[]) => string | null;

const fine: ArgCheck = () => null;

/** Folders whose programs are the system's own; `./ls` or `/tmp/cat` could be anything. */
const SYSTEM_BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/opt/homebrew/bin']);

/** find's actions that run programs, delete or write files. */
const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

/** For commands with dangerous flags: an argument that expands at run time could become one of them. */
function expanding(args: Word[], name: string): string | null {
  const w = args.find((a) => !a.literal);
  return w ? `an argument of ${name} (${w.text}) expands at run time and could turn into a flag that writes or runs programs` : null;
}

/** git subcommands that only read the repository. */
const GIT_READ_ONLY = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'ls-tree',
  'blame',
  'grep',
  'branch',
  'describe',
  'shortlog',
  'cat-file',
  'rev-list',
  'merge-base',
  'show-ref',
]);

/** git global options that can make any subcommand run a program. */
const GIT_UNSAFE_GLOBALS = new Set(['-c', '--config-env', '--exec-path']);

/** `git branch` flags that only list; any other flag creates, moves or deletes a branch. */
const BRANCH_LIST_FLAGS = new Set([
  '-a',
  '--all',
  '-r',
  '--remotes',
  '-l',
  '--list',
  '-v',
  '-vv',
  '--verbose',
  '--show-current',
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '--sort',
  '--format',
  '--color',
  '--no-color',
  '--column',
  '--no-column',
  '-i',
  '--ignore-case',
  '--abbrev',
  '--no-abbrev',
  '-q',
  '--quiet',
]);

/** `git branch` listing flags followed by a commit or pattern argument. */
const BRANCH_FLAGS_WITH_VALUE = new Set(['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format']);

function gitCheck(args: Word[]): string | null {
  const nonLiteral = expanding(args, 'git');
  if (nonLiteral) return nonLiteral;
  const { sub, rest, globals } = gitCommand(args);
  const unsafe = globals.find((g) => GIT_UNSAFE_GLOBALS.has(g));
  if (unsafe) return `\`git ${unsafe}\` can make git run any program`;
  if (sub === null || !GIT_READ_ONLY.has(sub)) return `\`git ${sub ?? ''}\` can change the repository or the worktree`;
  const values = rest.map((w) => w.value);
  if (values.some((v) => v === '--output' || v.startsWith('--output='))) return `\`git ${sub} --output\` writes a file`;
  if (sub === 'grep' && values.some((v) => v.startsWith('--open-files-in-pager') || /^-[A-Za-z]*O/.test(v))) return '`git grep -O` runs a pager program';
  if (sub === 'branch') return branchCheck(values);
  return null;
}

function branchCheck(values: string[]): string | null {
  const listing = values.includes('-l') || values.includes('--list');
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const flag = v.split('=')[0]!;
    if (v.startsWith('-')) {
      if (!BRANCH_LIST_FLAGS.has(flag)) return `\`git branch ${v}\` changes branches`;
      if (BRANCH_FLAGS_WITH_VALUE.has(v) && values[i + 1] && !values[i + 1]!.startsWith('-')) i++;
    } else if (!listing) return `\`git branch ${v}\` creates a branch`;
  }
  return null;
}

/** The approve list, with a check for the commands that have a dangerous flag. */
const READ_ONLY: Record<string, ArgCheck> = {
  ls: fine,
  cat: fine,
  head: fine,
  tail: fine,
  wc: fine,
  grep: fine,
  egrep: fine,
  fgrep: fine,
  pwd: fine,
  echo: fine,
  printf: fine,
  true: fine,
  false: fine,
  which: fine,
  type: fine,
  stat: fine,
  du: fine,
  df: fine,
  uname: fine,
  whoami: fine,
  id: fine,
  basename: fine,
  dirname: fine,
  realpath: fine,
  readlink: fine,
  cut: fine,
  tr: fine,
  diff: fine,
  cmp: fine,
  cd: fine,
  pushd: fine,
  popd: fine,
  test: fine,
  '[': fine,
  ':': fine,
  seq: fine,
  sleep: fine,
  find: (args) => {
    const action = args.find((w) => FIND_ACTIONS.has(w.value));
    return action ? `\`find ${action.value}\` runs programs or changes files` : expanding(args, 'find');
  },
  rg: (args) => (hasOption(parseArgs(args, {}), '--pre') ? '`rg --pre` runs a program on every file' : expanding(args, 'rg')),
  sort: (args) =>
    hasOption(parseArgs(args, { shortWithValue: 'kStTo' }), '-o', '--output', '--compress-program') ? '`sort -o` writes a file and `--compress-program` runs one' : expanding(args, 'sort'),
  uniq: (args) => (parseArgs(args, { shortWithValue: 'fsw' }).positionals.length > 1 ? '`uniq IN OUT` writes OUT' : expanding(args, 'uniq')),
  jq: (args) => (hasOption(parseArgs(args, {}), '-i', '--in-place') ? '`jq -i` edits a file in place' : null),
  date: (args) => {
    const parsed = parseArgs(args, { shortWithValue: 'dfr', longWithValue: ['--date', '--file', '--reference'] });
    if (hasOption(parsed, '-s', '--set') || parsed.positionals.some((w) => !w.value.startsWith('+'))) return '`date -s` and `date MMDDhhmm` set the system clock';
    return expanding(args, 'date');
  },
  command: fine, // reached only for `command -v NAME` / `command -V NAME`: the wrapper form is unwrapped first
  file: (args) => (hasOption(parseArgs(args, {}), '-C', '--compile') ? '`file -C` writes a magic file' : expanding(args, 'file')),
  env: (args) => (args.length === 0 ? null : '`env` with arguments runs a command with a changed environment'),
  git: gitCheck,
};

/**
 * Null if the command (after unwrapping) is on the approve list and its arguments are safe;
 * otherwise why it needs a person.
 * @example readOnlyReason(words('git status')) // null
 */
export function readOnlyReason(words: readonly Word[]): string | null {
  const first = words[0];
  const name = commandName(first);
  if (!first || name === null) return 'the command name is not literal';
  const check = READ_ONLY[name];
  if (!check) return `\`${name}\` is not on the read-only list`;
  if (first.value.includes('/') && !SYSTEM_BIN_DIRS.has(first.value.slice(0, first.value.lastIndexOf('/')))) {
    return `${first.value} is not the system's ${name}`;
  }
  return check(words.slice(1));
}
