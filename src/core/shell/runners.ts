// Programs that run code given as data: shells, interpreters, `eval`, `source`; and programs
// that turn data into code-shaped text (decoders, downloaders). Together they spot `… | base64 -d | sh`.
import type { SimpleCommand, Word } from './ast.js';
import { commandName, hasOption, parseArgs, unwrapCommand } from './command-line.js';

/** Where a code runner takes its program from. */
export type CodeSource = { kind: 'inline'; code: Word[] } | { kind: 'stdin' } | { kind: 'file'; file: Word } | { kind: 'none' };

/** How one runner takes its program: flags for inline code, flags that take a value, the flag that forces stdin. */
interface RunnerSpec {
  inline: string;
  inlineLong?: readonly string[];
  values: string;
  valuesLong?: readonly string[];
  stdin?: string;
  /** Flags whose value can only be attached (`perl -i.bak`): the rest of the cluster is theirs. */
  attached?: string;
}

const SHELL: RunnerSpec = { inline: 'c', values: 'oO', valuesLong: ['--rcfile', '--init-file'], stdin: 's' };

/** Shells, by name. */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'yash', 'fish', 'csh', 'tcsh']);

/** Shells whose syntax this parser follows; a literal `-c` script for these is analysed like the outer command. */
export const BASH_COMPATIBLE_SHELLS = new Set(['sh', 'bash', 'dash', 'ash']);

/** Interpreters and how each takes inline code; names are normalised by runnerKey. */
const INTERPRETERS: Record<string, RunnerSpec> = {
  python: { inline: 'c', values: 'mWXQ' },
  node: { inline: 'ep', inlineLong: ['--eval', '--print'], values: 'rC', valuesLong: ['--require', '--import', '--loader', '--experimental-loader', '--input-type', '--conditions'] },
  bun: { inline: 'ep', inlineLong: ['--eval', '--print'], values: 'r', valuesLong: ['--preload'] },
  perl: { inline: 'eE', values: '', attached: 'iIMmxFdDV' },
  ruby: { inline: 'e', values: 'IrCE', attached: 'iFx' },
  php: { inline: 'rBRE', values: 'cdfz' },
  lua: { inline: 'e', values: 'l' },
  osascript: { inline: 'e', values: 'l' },
};

/** Flags after which a runner prints something and exits without reading any program. */
const INFO_FLAGS = new Set(['--version', '-V', '--help', '-h', '-v']);

function runnerKey(name: string): string | null {
  if (SHELLS.has(name)) return 'sh';
  if (/^(python|pypy)[0-9.]*$/.test(name)) return 'python';
  if (name === 'nodejs') return 'node';
  if (/^perl[0-9.]*$/.test(name)) return 'perl';
  if (/^(lua|luajit)[0-9.]*$/.test(name)) return 'lua';
  return name in INTERPRETERS ? name : null;
}

/**
 * Where the runner `words[0]` takes its program from; null if it is not a code runner.
 * @example codeSource(words("bash -lc 'ls'")) // {kind: 'inline', code: ['ls']}
 */
export function codeSource(words: readonly Word[]): CodeSource | null {
  const name = commandName(words[0]);
  if (name === null) return null;
  const args = words.slice(1);
  if (name === 'eval') return { kind: 'inline', code: args };
  if (name === 'source' || name === '.') return args[0] ? fileOrStdin(args[0]) : { kind: 'none' };
  const key = runnerKey(name);
  if (key === null) return null;
  const spec = key === 'sh' ? SHELL : INTERPRETERS[key]!;
  let inline = false;
  let stdin = false;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (INFO_FLAGS.has(v) && !inline) return { kind: 'none' };
    if (v === '--' || v === '-') return codeAfter(args.slice(v === '--' ? i + 1 : i), inline, stdin);
    if (v.startsWith('--')) {
      const flag = v.split('=')[0]!;
      if (spec.inlineLong?.includes(flag)) return { kind: 'inline', code: v.includes('=') ? [args[i]!] : args.slice(i + 1, i + 2) };
      if (spec.valuesLong?.includes(flag) && !v.includes('=')) i++;
      continue;
    }
    if ((v.startsWith('-') || (key === 'sh' && v.startsWith('+'))) && v.length > 1) {
      for (let j = 1; j < v.length; j++) {
        const c = v[j]!;
        if (spec.inline.includes(c)) {
          // Shells take the script as the next positional; interpreters as the rest of the cluster or the next word.
          if (key === 'sh') inline = true;
          // Attached code (`-e'…'`) stays in its word, which is what is checked for substitutions.
          else return { kind: 'inline', code: j + 1 < v.length ? [args[i]!] : args.slice(i + 1, i + 2) };
        } else if (spec.stdin?.includes(c)) stdin = true;
        else if (spec.attached?.includes(c)) break;
        else if (spec.values.includes(c)) {
          if (key === 'python' && c === 'm') return { kind: 'file', file: j + 1 < v.length ? args[i]! : (args[i + 1] ?? args[i]!) };
          if (j + 1 === v.length) i++;
          break;
        }
      }
      continue;
    }
    return codeAfter(args.slice(i), inline, stdin);
  }
  return inline ? { kind: 'inline', code: [] } : { kind: 'stdin' };
}

function codeAfter(rest: readonly Word[], inline: boolean, stdin: boolean): CodeSource {
  if (inline) return { kind: 'inline', code: rest.slice(0, 1) };
  if (stdin || rest.length === 0) return { kind: 'stdin' };
  return fileOrStdin(rest[0]!);
}

/** Paths that are the program's own standard input. */
const STDIN_PATHS = new Set(['-', '/dev/stdin', '/proc/self/fd/0', '/dev/fd/0']);

function fileOrStdin(w: Word): CodeSource {
  return w.literal && STDIN_PATHS.has(w.value) ? { kind: 'stdin' } : { kind: 'file', file: w };
}

/** Programs whose output is decoded or unpacked data, so piping it into a shell hides what runs. */
const ALWAYS_DECODERS = new Set(['uudecode', 'gunzip', 'zcat', 'bzcat', 'xzcat', 'unxz', 'bunzip2', 'zstdcat', 'unzstd', 'rev']);

/** Programs that fetch data from the network. */
const DOWNLOADERS = new Set(['curl', 'fetch', 'http', 'https', 'xh', 'xhs', 'curlie', 'nc', 'ncat', 'socat']);

/** Escapes in a printf/echo string that spell characters in hex, octal or unicode instead of plainly. */
const CHAR_CODE_ESCAPE = /\\(x[0-9a-fA-F]|[0-7]{1,3}|u[0-9a-fA-F])/;

/**
 * True if the command turns data into text that is not visible in the command line: a decoder
 * (`base64 -d`, `xxd -r`, `openssl … -d`, `gunzip`, `rev`, `printf '\x72'`) or a downloader.
 */
export function isDecoderOrDownloader(cmd: SimpleCommand): boolean {
  const words = unwrapCommand(cmd.words).words;
  const name = commandName(words[0]);
  if (name === null) return false;
  const args = words.slice(1);
  const values = args.map((w) => w.value);
  if (DOWNLOADERS.has(name) || ALWAYS_DECODERS.has(name)) return true;
  if (['base64', 'base32', 'basenc', 'gzip', 'bzip2', 'xz', 'zstd', 'openssl'].includes(name)) {
    return hasOption(parseArgs(args, {}), '-d', '-D', '--decode', '--decompress', '--uncompress');
  }
  if (name === 'xxd') return hasOption(parseArgs(args, {}), '-r', '--revert');
  if (name === 'wget') {
    return values.some(
      (v, i) => /^-[A-Za-z]*O-$/.test(v) || v === '--output-document=-' || v === '-O/dev/stdout' || (/^-[A-Za-z]*O$/.test(v) && (values[i + 1] === '-' || values[i + 1] === '/dev/stdout')),
    );
  }
  if (name === 'printf' || (name === 'echo' && values.some((v) => /^-[neE]*e[neE]*$/.test(v)))) return values.some((v) => CHAR_CODE_ESCAPE.test(v));
  return false;
}
