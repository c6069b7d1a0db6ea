// The commands Gatehouse refuses outright, judged one simple command at a time: catastrophic
// deletes, disk formatting, raw device writes, and an agent resolving its own approval requests.
import type { Word } from './ast.js';
import { commandName, hasOption, parseArgs } from './command-line.js';
import { normalizePath, normalizeRelative, resolvePath } from './paths.js';
import { codeSource } from './runners.js';

/** Top-level folders whose contents are scratch space; clearing them is not catastrophic. */
const SCRATCH_TOP_LEVEL = new Set(['tmp']);

/** Names `$HOME` can be written as, after quote removal. */
const HOME_FORMS = /^(\$HOME|\$\{HOME\}|~[A-Za-z0-9_.-]*)/;

/**
 * True if recursively deleting (or re-owning) `w` would wreck the machine or a home folder:
 * `/`, `/*`, a top-level folder such as `/usr`, `~`, `~/`, `$HOME`, `~user`, or a relative path
 * or glob that resolves to one of those from `cwd` (`..`, `*` in `/`).
 */
function isCatastrophicTarget(w: Word, cwd: string | null, homeDir: string | null = null): boolean {
  const home = HOME_FORMS.exec(w.value);
  if (home) return /^(\/\.?|\/\*)*$/.test(w.value.slice(home[0].length));
  // Other parameters and substitutions are unknown here: they make the command ask, not deny.
  if (!w.literal && /[$`]/.test(w.value)) return false;
  let abs = resolvePath(cwd, w.value);
  if (abs === null) return false;
  // A trailing `/*` does not make a tree any smaller.
  while (abs.endsWith('/*')) abs = normalizePath(abs.slice(0, -2));
  // The home folder, once `~` or `$HOME` is expanded to it.
  if (homeDir !== null && abs === normalizePath(homeDir)) return true;
  const segments = abs.split('/').filter(Boolean);
  return segments.length === 0 || (segments.length === 1 && !SCRATCH_TOP_LEVEL.has(segments[0]!));
}

/** Commands that wipe whole trees when given `-r`/`-R`, with the flags that make them recursive. */
const RECURSIVE_DESTROYERS: Record<string, string[]> = {
  rm: ['-r', '-R', '--recursive'],
  chmod: ['-R', '--recursive'],
  chown: ['-R', '--recursive'],
  chgrp: ['-R', '--recursive'],
};

/** Programs that format or wipe a disk or partition. */
const FORMATTERS = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|mkdosfs|mkntfs)$/;

/** Block devices: writing one directly destroys the file systems on it. */
const BLOCK_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|md\d|dm-\d|mapper\/|loop\d)/;

/** True if `path` is a disk or partition device. */
export function isBlockDevice(path: string): boolean {
  return BLOCK_DEVICE.test(path);
}

/** Subcommands of our CLI that resolve an approval; the agent must never run them itself. */
const APPROVAL_VERBS = new Set(['approve', 'deny', 'reject', 'resolve']);

/** How many leading positionals of our CLI are searched for an approval verb: `gatehouse approve ID`, and a verb under a command group (`gatehouse <group> resolve ID`) too. */
const APPROVAL_VERB_WINDOW = 3;

/**
 * Package runners that start a package's binary (`npx gatehouse approve`): for each, how many
 * leading words belong to the runner (`pnpm exec` is two), or -1 when the words are not a run.
 */
const PACKAGE_RUNNERS: Record<string, (words: readonly Word[]) => number> = {
  npx: () => 1,
  pnpx: () => 1,
  bunx: () => 1,
  npm: (w) => (['exec', 'x'].includes(w[1]?.value ?? '') ? 2 : -1),
  pnpm: (w) => (['exec', 'dlx'].includes(w[1]?.value ?? '') ? 2 : 1),
  yarn: (w) => (['exec', 'dlx'].includes(w[1]?.value ?? '') ? 2 : 1),
  bun: (w) => (w[1]?.value === 'x' ? 2 : -1),
  uvx: () => 1,
  pipx: (w) => (w[1]?.value === 'run' ? 2 : -1),
};

/**
 * The words a package runner passes to the package's program, the first being the bare package
 * name (`npx -y husky@9 install` → `husky install`); null when `words` are not a package run.
 */
export function packageBinArgs(words: readonly Word[]): Word[] | null {
  const name = commandName(words[0]);
  const skip = name === null ? -1 : (PACKAGE_RUNNERS[name]?.(words) ?? -1);
  if (skip < 0) {
    // `python -m pre_commit install`
    if (name !== null && /^python[0-9.]*$/.test(name) && words[1]?.value === '-m' && words[2]?.literal) {
      return [{ ...words[2], value: words[2].value.replace(/_/g, '-') }, ...words.slice(3)];
    }
    return null;
  }
  const i = words.findIndex((w, k) => k >= skip && !w.value.startsWith('-'));
  const pkg = words[i];
  if (!pkg || !pkg.literal) return null;
  const bare = pkg.value.replace(/^@[^/]+\//, '').replace(/@[^@]*$/, '');
  return [{ ...pkg, text: bare, value: bare }, ...words.slice(i + 1)];
}

/** JavaScript runtimes that can start our CLI's built file (`node dist/cli.js approve`). */
const JS_RUNTIMES = new Set(['node', 'nodejs', 'bun', 'tsx', 'ts-node']);

/** Our built entry point as a normalised path tail: the package's `bin`, with or without the extension Node adds when searching. */
const OUR_ENTRY = /(^|\/)dist\/cli(\.m?js)?$/;

/**
 * True if `w` names our CLI: by name, or by a path whose normalised tail is `/gatehouse` (or a
 * custom name) or `dist/cli.js`. The tail of a word is checked even when its head expands
 * (`"$PWD"/dist/./cli.js`), since only the head is unknown.
 */
function isOurs(w: Word | undefined, names: readonly string[]): boolean {
  if (!w) return false;
  const v = normalizeRelative(w.value.replace(/\/+$/, ''));
  if (w.literal && names.includes(v)) return true;
  return OUR_ENTRY.test(v) || v.endsWith('/gatehouse') || names.some((n) => v.endsWith(`/${n}`));
}

/**
 * If `words` run our own CLI, the arguments given to it; otherwise null. Recognises the command
 * by name, by any path ending in `/gatehouse` or `dist/cli.js` (after normalising `.`, `..` and
 * `//`), through a JS runtime, or via `npx`.
 */
export function gatehouseArgs(words: readonly Word[], names: readonly string[]): Word[] | null {
  if (isOurs(words[0], names)) return words.slice(1);
  const name = commandName(words[0]);
  if (name === null) return null;
  const skip = PACKAGE_RUNNERS[name]?.(words) ?? -1;
  if (skip >= 0) {
    const i = words.findIndex((w, k) => k >= skip && !w.value.startsWith('-'));
    const pkg = words[i];
    const bare = pkg?.value.replace(/^@[^/]+\//, '').replace(/@[^@]*$/, '') ?? '';
    if (pkg?.literal && names.some((n) => bare === n || bare === `${n}-cli`)) return words.slice(i + 1);
    return pkg && isOurs(pkg, names) && pkg.value.includes('/') ? words.slice(i + 1) : null;
  }
  if (!JS_RUNTIMES.has(name)) return null;
  const src = codeSource(words);
  const script = src?.kind === 'file' ? words.indexOf(src.file) : words.findIndex((w, k) => k > 0 && !w.value.startsWith('-'));
  return script > 0 && isOurs(words[script], names) ? words.slice(script + 1) : null;
}

/** A reason if `args` (given to our CLI) resolve an approval; null otherwise. */
function approvalCommandReason(args: readonly Word[]): string | null {
  const positionals = args.filter((w) => !w.value.startsWith('-')).slice(0, APPROVAL_VERB_WINDOW);
  const verbs = positionals.map((w) => w.value);
  // Ending its own session removes the hooks that gate it; rotating keys rewrites who signs.
  if ((verbs[0] === 'session' && verbs[1] === 'end') || (verbs[0] === 'keys' && verbs[1] === 'rotate')) {
    return `it runs \`gatehouse ${verbs[0]} ${verbs[1]}\`, which only the operator may do; the agent must never switch off its own supervision`;
  }
  if (!positionals.some((w) => w.literal && APPROVAL_VERBS.has(w.value))) return null;
  return 'it resolves a Gatehouse approval request; only a person may do that, never the agent that asked';
}

/** HTTP clients whose arguments are checked for requests to the approvals API. */
const HTTP_CLIENTS = new Set(['curl', 'wget', 'http', 'https', 'xh', 'xhs', 'curlie', 'fetch', 'httpie', 'aria2c']);

/** A URL (or bare host:port, or httpie's `:port/path`) on this machine's loopback interface. */
const LOOPBACK = /^:\d+\/|(^|\/\/|@)(localhost|127(\.\d{1,3}){1,3}|0\.0\.0\.0|0|\[::1?\]|\[0:0:0:0:0:0:0:1\])(:\d+)?(\/|$)/i;

/** Methods that change state on a server. */
const MUTATING_METHOD = /^(POST|PUT|PATCH|DELETE)$/i;

/** Options that make a request send a body, and so a POST, without naming the method. */
const BODY_OPTIONS = ['-d', '-F', '-T', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--json', '--form', '--upload-file', '--post-data', '--post-file', '--body-data'];

/**
 * Rounds of percent-decoding undone before a URL is matched: the server decodes once, and a proxy
 * or client may decode once more, so `%2561pprovals` must not slip past.
 */
const URL_DECODE_ROUNDS = 2;

/** `v` percent-decoded (as far as it decodes), with backslashes read as slashes, as WHATWG URL parsers do. */
function decodeUrl(v: string): string {
  let s = v.replace(/\\/g, '/');
  for (let i = 0; i < URL_DECODE_ROUNDS; i++) {
    try {
      const d = decodeURIComponent(s);
      if (d === s) break;
      s = d;
    } catch {
      break;
    }
  }
  return s;
}

/** The approvals API's path prefix, matched on a normalised path (`//approvals/`, `/./approvals/`, `/x/../approvals/`). */
const APPROVALS_PATH = /(^|\/)approvals(\/|$|\?|#)/i;

/** A reason if an HTTP client resolves an approval through the gateway's API; null otherwise. */
function approvalsApiReason(words: readonly Word[]): string | null {
  const name = commandName(words[0]);
  if (name === null || !HTTP_CLIENTS.has(name)) return null;
  const values = words.slice(1).map((w) => decodeUrl(w.value));
  if (!values.some((v) => APPROVALS_PATH.test(normalizeRelative(v)))) return null;
  const resolve = values.some((v) => /resolve/i.test(v));
  const mutating = values.some((v) => MUTATING_METHOD.test(v) || /^(-X|--request=|--method=)(POST|PUT|PATCH|DELETE)$/i.test(v)) || hasOption(parseArgs(words.slice(1), {}), ...BODY_OPTIONS);
  if (!resolve && !(mutating && values.some((v) => LOOPBACK.test(v)))) return null;
  return 'it calls the Gatehouse approvals API to resolve a request; only a person may do that, never the agent that asked';
}

/**
 * The reason to refuse one simple command outright (after unwrapping), or null.
 * Write targets (protected paths, block devices) are judged separately by the classifier.
 */
export function denyReason(words: readonly Word[], cwd: string | null, gatehouseNames: readonly string[], home: string | null = null): string | null {
  const ours = gatehouseArgs(words, gatehouseNames);
  if (ours) return approvalCommandReason(ours);
  const name = commandName(words[0]);
  if (name === null) return null;
  const args = words.slice(1);
  const recursiveFlags = RECURSIVE_DESTROYERS[name];
  if (recursiveFlags) {
    const parsed = parseArgs(args, name === 'rm' ? {} : { longWithValue: ['--from'] });
    const targets = name === 'rm' || hasOption(parsed, '--reference') ? parsed.positionals : parsed.positionals.slice(1);
    const root = targets.find((w) => isCatastrophicTarget(w, cwd, home));
    if (root && hasOption(parsed, ...recursiveFlags)) {
      return `it ${name === 'rm' ? 'deletes' : 'changes permissions of'} everything under ${root.text}, which would wreck the machine or a home folder`;
    }
  }
  if (FORMATTERS.test(name)) return 'it formats a disk or partition';
  return approvalsApiReason(words);
}
