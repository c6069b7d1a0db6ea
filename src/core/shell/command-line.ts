// Reads a simple command's words as the program would: its name, GNU-style options and
// positional arguments; and sees through wrappers such as `sudo`, `env`, `timeout`, `xargs`.
import type { Word } from './ast.js';
import { baseName } from './paths.js';

/** How a program takes its options. */
export interface OptionSpec {
  /** Short options that take a value, as `-t DIR` or `-tDIR`. */
  shortWithValue?: string;
  /** Long options that take a value, as `--opt VALUE` or `--opt=VALUE`. */
  longWithValue?: readonly string[];
  /** Options end at the first positional (wrappers, POSIX); otherwise GNU permutation: options anywhere before `--`. */
  stopAtPositional?: boolean;
}

/** One option as given: `name` is `-t` or `--target-directory` (as typed, maybe abbreviated). */
interface ParsedOption {
  name: string;
  value: Word | null;
}

/** A command's arguments split into options and positionals. */
export interface ParsedArgs {
  options: ParsedOption[];
  positionals: Word[];
}

/** Shortest abbreviation of a long option that getopt accepts here (`--rec` for `--recursive`); shorter is too ambiguous to guess. */
const MIN_LONG_ABBREVIATION = 4;

/** True if the long option `given` (as typed) names `full`, allowing GNU's unambiguous abbreviations. */
export function longMatches(given: string, full: string): boolean {
  return given === full || (given.length >= MIN_LONG_ABBREVIATION && full.startsWith(given));
}

function slice(w: Word, from: number): Word {
  return { text: w.value.slice(from), value: w.value.slice(from), literal: w.literal, splits: w.splits, evaluates: w.evaluates, subs: w.subs };
}

/**
 * Splits `args` (the words after the command name) into options and positionals.
 * @example parseArgs(words('-t d a b'), {shortWithValue: 't'}) // options [-t d], positionals [a, b]
 */
export function parseArgs(args: readonly Word[], spec: OptionSpec): ParsedArgs {
  const options: ParsedOption[] = [];
  const positionals: Word[] = [];
  const shortValue = spec.shortWithValue ?? '';
  const longValue = spec.longWithValue ?? [];
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === '--') {
      i++;
      break;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq === -1 ? v : v.slice(0, eq);
      if (eq !== -1) options.push({ name, value: slice(w, eq + 1) });
      else if (longValue.some((l) => longMatches(name, l))) options.push({ name, value: args[++i] ?? null });
      else options.push({ name, value: null });
      continue;
    }
    if (v.startsWith('-') && v.length > 1) {
      for (let j = 1; j < v.length; j++) {
        const name = `-${v[j]}`;
        if (shortValue.includes(v[j]!)) {
          options.push({ name, value: j + 1 < v.length ? slice(w, j + 1) : (args[++i] ?? null) });
          break;
        }
        options.push({ name, value: null });
      }
      continue;
    }
    if (spec.stopAtPositional) break;
    positionals.push(w);
  }
  positionals.push(...args.slice(i));
  return { options, positionals };
}

/** True if any parsed option is one of `names` (short exact, long with abbreviations). */
export function hasOption(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.options.some((o) => names.some((n) => (n.startsWith('--') ? longMatches(o.name, n) : o.name === n)));
}

/** The values of every option among `names`, in order. */
export function optionValues(parsed: ParsedArgs, ...names: string[]): Word[] {
  const out: Word[] = [];
  for (const o of parsed.options) {
    if (o.value && names.some((n) => (n.startsWith('--') ? longMatches(o.name, n) : o.name === n))) out.push(o.value);
  }
  return out;
}

/** The program a word names, as its base name (`/usr/bin/rm` → `rm`); null if the word is not literal. */
export function commandName(w: Word | undefined): string | null {
  if (!w || !w.literal) return null;
  return baseName(w.value);
}

/** A wrapper that runs the command given in its arguments. */
interface WrapperSpec {
  options: OptionSpec;
  /** Positionals before the wrapped command (`timeout DURATION cmd`). */
  skip?: number;
  /** Why a command run through this wrapper needs a person even if it is harmless on its own. */
  ask?: string;
}

/**
 * Wrappers the classifier sees through, so that `sudo rm -rf /` is judged as `rm -rf /`.
 * Only wrappers whose option syntax is simple enough to follow exactly are listed.
 */
const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    options: {
      shortWithValue: 'ugCDhpRrtUT',
      longWithValue: ['--user', '--group', '--chdir', '--host', '--prompt', '--chroot', '--role', '--type', '--other-user', '--close-from', '--command-timeout'],
      stopAtPositional: true,
    },
    ask: 'it runs with elevated privileges',
  },
  doas: { options: { shortWithValue: 'uC', stopAtPositional: true }, ask: 'it runs with elevated privileges' },
  command: { options: { stopAtPositional: true } },
  builtin: { options: { stopAtPositional: true } },
  env: { options: { shortWithValue: 'uCS', longWithValue: ['--unset', '--chdir', '--split-string'], stopAtPositional: true } },
  nice: { options: { shortWithValue: 'n', longWithValue: ['--adjustment'], stopAtPositional: true } },
  nohup: { options: { stopAtPositional: true } },
  time: { options: { shortWithValue: 'fo', longWithValue: ['--format', '--output'], stopAtPositional: true } },
  timeout: { options: { shortWithValue: 'sk', longWithValue: ['--signal', '--kill-after'], stopAtPositional: true }, skip: 1 },
  stdbuf: { options: { shortWithValue: 'ioe', longWithValue: ['--input', '--output', '--error'], stopAtPositional: true } },
  ionice: { options: { shortWithValue: 'cnp', longWithValue: ['--class', '--classdata', '--pid'], stopAtPositional: true } },
  exec: { options: { shortWithValue: 'a', stopAtPositional: true }, ask: '`exec` replaces the shell with it' },
  xargs: {
    options: { shortWithValue: 'adEILnPs', longWithValue: ['--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'], stopAtPositional: true },
    // No ask here: classify.ts allows it when the inner command has no flag that its appended arguments could turn on.
  },
};

/** Longest chain of wrappers followed (`sudo env nice …`); a longer chain is not a real command. */
const MAX_WRAPPERS = 8;

/** Environment variables a command may be given without review: they change formatting, never what runs. */
const SAFE_ENV_NAMES = new Set(['LANG', 'LANGUAGE', 'TZ', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'TERM', 'COLUMNS', 'LINES', 'CI']);

/** True for environment variables that only change formatting (`LC_ALL`, `TZ`, `NO_COLOR`, …). */
export function isSafeEnvName(name: string): boolean {
  return SAFE_ENV_NAMES.has(name) || name.startsWith('LC_');
}

/** The command a wrapper chain finally runs, and why the wrappers alone need a person (if they do). */
export interface Unwrapped {
  words: Word[];
  wrappers: string[];
  asks: string[];
  /** A wrapped command that runs in another directory (`env -C`, `sudo -D`): relative paths cannot be checked. */
  cwdChanged: boolean;
  /** Variables a wrapper sets for the command (`env NAME=value cmd`). */
  envNames: string[];
}

/**
 * Strips wrappers from the front of `words`.
 * @example unwrapCommand(words('sudo -u root rm -rf x')).words // rm -rf x
 */
export function unwrapCommand(words: readonly Word[]): Unwrapped {
  const out: Unwrapped = { words: [...words], wrappers: [], asks: [], cwdChanged: false, envNames: [] };
  for (let n = 0; n < MAX_WRAPPERS; n++) {
    const name = commandName(out.words[0]);
    const spec = name === null ? undefined : WRAPPERS[name];
    if (!name || !spec) return out;
    const parsed = parseArgs(out.words.slice(1), spec.options);
    let inner = parsed.positionals.slice(spec.skip ?? 0);
    if (name === 'command' && hasOption(parsed, '-v', '-V')) return out;
    if (name === 'env') {
      if (hasOption(parsed, '-S', '--split-string')) out.asks.push('`env -S` splits a string into a command Gatehouse does not parse');
      while (inner[0] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(inner[0].value)) {
        const varName = inner[0].value.slice(0, inner[0].value.indexOf('='));
        out.envNames.push(varName);
        if (!isSafeEnvName(varName)) out.asks.push(`it sets ${varName}, which can change what the command runs`);
        inner = inner.slice(1);
      }
    }
    if (hasOption(parsed, '-C', '--chdir', '-D') && (name === 'env' || name === 'sudo')) out.cwdChanged = true;
    if (inner.length === 0) return out;
    out.wrappers.push(name);
    if (spec.ask) out.asks.push(spec.ask);
    if (name === 'time' && hasOption(parsed, '-o', '--output')) out.asks.push('`time -o` writes a file');
    out.words = inner;
  }
  out.asks.push(`it is wrapped more than ${MAX_WRAPPERS} times`);
  return out;
}
