// The approve list: commands that only read, run without review when they have no dangerous
// flag. A command passes only if it is named here and its own check finds nothing to fear.
import type { Word } from './ast.js';
import { credentialRead } from './credential-files.js';
import { commandName, hasOption, parseArgs } from './command-line.js';
import { gitCommand } from './git-targets.js';
import { gitKbVerdict, kbVerdict } from './kb/interpret.js';

/** A check on a listed command's arguments: a reason it needs review, or null. */
type ArgCheck = (args: Word[]) => string | null;

/** Commands with no flag that writes or runs anything: whatever arguments they get, they only read. */
const fine: ArgCheck = () => null;

/** What the read-only list and the knowledge base say about one command. */
export interface ReadOnly {
  /** Why it needs a person; null when it only reads. */
  problem: string | null;
  /** The rule that decided (`read-only:ls`, `knowledge-base`, `not-listed`). */
  rule: string;
  /** The knowledge-base entry that decided (`kubectl get`), when one did. */
  kb?: string;
}

const reads = (rule: string, kb?: string): ReadOnly => (kb ? { problem: null, rule, kb } : { problem: null, rule });
const asks = (problem: string, rule: string): ReadOnly => ({ problem, rule });

/** Folders whose programs are the system's own; `./ls` or `/tmp/cat` could be anything. */
const SYSTEM_BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/opt/homebrew/bin']);

/** Variable names that hold credentials by convention (`ANTHROPIC_API_KEY`, `GH_TOKEN`, `DB_PASSWORD`). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASS|CRED|AUTH|SESSION|COOKIE|PRIVATE|CERT/i;

/** Read-only commands that show a file's name, size, type or digest, never its content. */
const SHOWS_NO_CONTENT = new Set([
  'ls',
  'stat',
  'du',
  'wc',
  'file',
  'md5sum',
  'sha1sum',
  'sha224sum',
  'sha256sum',
  'sha384sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'test',
  '[',
]);

/** find's actions that delete or write files (`-exec` and friends are judged by their inner command, in classify.ts). */
const FIND_ACTIONS = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

/** find's actions that run a command: the command is judged on its own, and must not be empty. */
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

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

/** git global options that can make any subcommand run a program (`-c` is judged by its key). */
const GIT_UNSAFE_GLOBALS = new Set(['--config-env', '--exec-path', '--paginate', '-p']);

/** `git -c KEY=VALUE` keys that only change how output looks; any other key (core.pager, core.sshCommand, diff.external, …) may name a program. */
const GIT_DISPLAY_KEYS =
  /^(color(\.[a-z.]+)?|core\.quotepath|core\.abbrev|diff\.noprefix|diff\.mnemonicprefix|diff\.renames|diff\.relative|log\.decorate|log\.abbrevcommit|log\.date|column\.ui|advice\.[a-z]+|init\.defaultbranch|safe\.directory|pager\.[a-z-]+=false|core\.pager=cat)(=|$)/i;

/** git flags that run a diff or textconv program from the configuration. */
const GIT_EXTERNAL_DIFF = new Set(['--ext-diff']);

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

function gitCheck(args: Word[]): ReadOnly {
  const nonLiteral = expanding(args, 'git');
  if (nonLiteral) return asks(nonLiteral, 'read-only:git');
  const { sub, rest, globals } = gitCommand(args);
  const unsafe = globals.find((g) => GIT_UNSAFE_GLOBALS.has(g));
  if (unsafe) return asks(`\`git ${unsafe}\` can make git run any program`, 'read-only:git');
  const config = configOverride(args);
  if (config) return asks(`\`git -c ${config}\` can make git run a program`, 'read-only:git -c');
  if (sub === null) return globals.some((g) => g === '--version' || g === '--help' || g === '-h') ? reads('read-only:git', 'git --version') : asks('`git` without a subcommand', 'read-only:git');
  if (!GIT_READ_ONLY.has(sub)) {
    const v = gitKbVerdict(args.slice(args.length - rest.length - 1));
    return { problem: v.problem, rule: 'knowledge-base', kb: v.entry };
  }
  const values = rest.map((w) => w.value);
  const at = `read-only:git ${sub}`;
  if (values.some((v) => v === '--output' || v.startsWith('--output='))) return asks(`\`git ${sub} --output\` writes a file`, at);
  if (values.some((v) => GIT_EXTERNAL_DIFF.has(v))) return asks(`\`git ${sub} --ext-diff\` runs the configured external diff program`, at);
  if (sub === 'grep' && values.some((v) => v.startsWith('--open-files-in-pager') || /^-[A-Za-z]*O/.test(v))) return asks('`git grep -O` runs a pager program', at);
  if (sub === 'branch') return { problem: branchCheck(values), rule: at };
  return reads(at);
}

/** The first `-c KEY=VALUE` before the subcommand whose key may name a program, or null. */
function configOverride(args: Word[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (!v.startsWith('-')) return null;
    if (v === '-c') {
      const kv = args[++i]?.value ?? '';
      if (!GIT_DISPLAY_KEYS.test(kv)) return kv;
    } else if (['-C', '--git-dir', '--work-tree', '--namespace'].includes(v)) i++;
  }
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
    if (action) return `\`find ${action.value}\` changes files`;
    const exec = args.findIndex((w) => FIND_EXEC.has(w.value));
    if (exec !== -1 && (args[exec + 1] === undefined || [';', '+'].includes(args[exec + 1]!.value))) return `\`find ${args[exec]!.value}\` names no command`;
    return expanding(args, 'find');
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
  // The whole environment holds the session's credentials (API keys, tokens): printing it is a credential print.
  env: (args) => (args.length === 0 ? '`env` prints every environment variable, credentials included' : '`env` with arguments runs a command with a changed environment'),
  printenv: (args) => {
    const names = parseArgs(args, {}).positionals;
    if (names.length === 0) return '`printenv` prints every environment variable, credentials included';
    const secret = names.find((w) => !w.literal || SECRET_NAME.test(w.value));
    return secret === undefined ? null : `\`printenv ${secret.text}\` may print a credential`;
  },
  tac: fine,
  rev: fine,
  nl: fine,
  od: fine,
  hexdump: fine,
  strings: fine,
  md5sum: fine,
  sha1sum: fine,
  sha224sum: fine,
  sha256sum: fine,
  sha384sum: fine,
  sha512sum: fine,
  b2sum: fine,
  cksum: fine,
  sum: fine,
  md5: fine,
  shasum: fine,
  column: fine,
  fold: fine,
  fmt: fine,
  paste: fine,
  comm: fine,
  expand: fine,
  unexpand: fine,
  join: fine,
  look: fine,
  expr: fine,
  numfmt: fine,
  base64: fine,
  base32: fine,
  factor: fine,
  cal: fine,
  whereis: fine,
  whatis: fine,
  apropos: fine,
  getconf: fine,
  hostid: fine,
  read: fine,
  exa: fine,
  eza: fine,
  lsd: fine,
  zgrep: fine,
  zegrep: fine,
  lsattr: fine,
  getfacl: fine,
  ulimit: (args) => (args.every((w) => w.literal && /^-[a-zA-Z]+$/.test(w.value)) ? null : '`ulimit` with a value sets a limit'),
};

/** The check for a listed command; own keys only, so `constructor` is not a command. */
function listed(name: string): ArgCheck | undefined {
  return Object.hasOwn(READ_ONLY, name) ? READ_ONLY[name] : undefined;
}

/**
 * What the read-only list (or, for programs not on it, the knowledge base) says about the command
 * after unwrapping: `problem` null if it only reads, otherwise why it needs a person.
 * @example readOnlyReason(words('git status')).problem // null
 */
export function readOnlyReason(words: readonly Word[], cwds: readonly string[] | null = null): ReadOnly {
  const first = words[0];
  const name = commandName(first);
  if (!first || name === null) return asks('the command name is not literal', 'not-listed');
  if (first.value.includes('/') && !SYSTEM_BIN_DIRS.has(first.value.slice(0, first.value.lastIndexOf('/')))) {
    return asks(`${first.value} is not the system's ${name}`, 'program-path');
  }
  if (name === 'git') return gitCheck(words.slice(1));
  const check = listed(name);
  if (check) return { problem: check(words.slice(1)) ?? (SHOWS_NO_CONTENT.has(name) ? null : credentialRead(words.slice(1), cwds)), rule: `read-only:${name}` };
  const kb = kbVerdict(name, words.slice(1));
  // `openssl x509` reads certificates only: a private key given to it is refused, not printed.
  const x509 = name === 'openssl' && words[1]?.value === 'x509';
  if (kb) return { problem: kb.problem ?? (x509 ? null : credentialRead(words.slice(1), cwds)), rule: 'knowledge-base', kb: kb.entry };
  return asks(`\`${name}\` is not on the read-only list`, 'not-listed');
}

/** True if `name` is on the read-only list with no flag that can write or run anything, so arguments appended by `xargs` cannot harm. */
export function takesAnyArguments(name: string): boolean {
  return listed(name) === fine;
}
