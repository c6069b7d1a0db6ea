// Checks that flags alone cannot make: a sed or awk program that writes files or runs commands,
// and tar's mode letters. Each returns why the command needs a person, or null when it only reads.
import type { Word } from '../ast.js';

/** sed commands that only print, move between lines or hold text. */
const SED_PLAIN = new Set([...'pPdDnNgGhHxlq=Qzv{}F']);

/** sed commands followed by text or a label to the end of the line (a/i/c print, r/R read, b/t/T jump). */
const SED_TO_EOL = new Set([...'aicrRbtT:#']);

/** The sed programs among the arguments: every `-e`/`--expression`, else the first positional. */
function sedScripts(args: readonly Word[]): string[] | string {
  const scripts: string[] = [];
  let first: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === '-e' || v === '--expression') scripts.push(args[++i]?.value ?? '');
    else if (v.startsWith('--expression=')) scripts.push(v.slice('--expression='.length));
    else if (/^-[nErsuz]*e./.test(v)) scripts.push(v.slice(v.indexOf('e') + 1));
    else if (v === '-l' || v === '--line-length') i++;
    else if (!v.startsWith('-') && first === null) first = v;
  }
  if (scripts.length > 0) return scripts;
  return first === null ? 'sed has no script' : [first];
}

/** Skips a `/re/` or `\cREc` address starting at `i`; the index after it. */
function skipDelimited(s: string, i: number, delim: string): number {
  for (let k = i; k < s.length; k++) {
    if (s[k] === '\\') k++;
    else if (s[k] === delim) return k + 1;
  }
  return -1;
}

function skipAddress(s: string, i: number): number {
  const m = /^(\d+(~\d+)?|\$)/.exec(s.slice(i));
  if (m) return i + m[0].length;
  if (s[i] === '/') return skipDelimited(s, i + 1, '/');
  if (s[i] === '\\' && i + 1 < s.length) return skipDelimited(s, i + 2, s[i + 1]!);
  return i;
}

/** Why a sed program writes or runs something (`w`, `W`, `e`, `s///w`, `s///e`), or null. */
function sedScriptProblem(s: string): string | null {
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /[\s;]/.test(s[i]!)) i++;
    if (i >= s.length) break;
    i = skipAddress(s, i);
    if (i === -1) return 'its sed address does not parse';
    if (s[i] === ',') {
      const to = skipAddress(s, i + 1);
      i = to === i + 1 && /[+~]/.test(s[i + 1] ?? '') ? i + 2 + (/^\d+/.exec(s.slice(i + 2))?.[0].length ?? 0) : to;
      if (i === -1) return 'its sed address does not parse';
    }
    while (s[i] === ' ' || s[i] === '!' || s[i] === 'I' || s[i] === 'M') i++;
    const c = s[i];
    if (c === undefined) break;
    if (c === 's' || c === 'y') {
      const d = s[i + 1];
      if (d === undefined || d === '\n' || d === '\\') return 'its sed substitution does not parse';
      const mid = skipDelimited(s, i + 2, d);
      const end = mid === -1 ? -1 : skipDelimited(s, mid, d);
      if (end === -1) return 'its sed substitution does not parse';
      i = end;
      const flags = /^[gpiImM0-9ew]*/.exec(s.slice(i))![0];
      if (c === 's' && /[ew]/.test(flags)) return `its sed substitution flag \`${flags}\` ${flags.includes('e') ? 'runs the result as a command' : 'writes a file'}`;
      i += flags.length;
    } else if (SED_PLAIN.has(c)) i = i + 1 + (/^\d*/.exec(s.slice(i + 1))?.[0].length ?? 0);
    else if (SED_TO_EOL.has(c)) {
      const nl = s.indexOf('\n', i);
      i = nl === -1 ? s.length : nl + 1;
    } else if (c === 'w' || c === 'W') return 'its sed `w` command writes a file';
    else if (c === 'e') return 'its sed `e` command runs a command';
    else return `Gatehouse does not know the sed command \`${c}\``;
  }
  return null;
}

/** Why a sed command line writes or runs something, or null. */
export function sedProblem(args: readonly Word[]): string | null {
  const scripts = sedScripts(args);
  if (typeof scripts === 'string') return scripts;
  for (const s of scripts) {
    const p = sedScriptProblem(s);
    if (p) return p;
  }
  return null;
}

/** awk constructs that run commands or write files: `system()`, pipes, `print > file`, gawk's `@load`/`@include`. */
const AWK_UNSAFE: readonly [RegExp, string][] = [
  [/\bsystem\s*\(/, '`system()` runs a command'],
  [/(^|[^|])\|(?!\|)/, 'a `|` in an awk program runs a command'],
  [/\bprintf?\b[^;{}\n]*>/, '`print > FILE` writes a file'],
  [/@/, "gawk's `@load`/`@include` loads code"],
];

/** Why an awk command line runs commands or writes files, or null. */
export function awkProblem(args: readonly Word[]): string | null {
  let program: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === '-e' || v === '--source') program = (program ?? '') + (args[++i]?.value ?? '');
    else if (v === '-F' || v === '-v' || v === '--field-separator' || v === '--assign') i++;
    else if (v === '--') {
      program ??= args[i + 1]?.value ?? null;
      break;
    } else if (!v.startsWith('-') && program === null) program = v;
  }
  if (program === null) return 'awk has no program';
  const hit = AWK_UNSAFE.find(([re]) => re.test(program));
  return hit ? `its awk program may run a command or write a file: ${hit[1]}` : null;
}

/** tar letters that only list an archive (`t`) or shape how it is read and shown. */
const TAR_LIST_LETTERS = new Set([...'tvfzjJZaOPS']);

/** tar long options that only list or filter. */
const TAR_LIST_LONG =
  /^--(list|file|verbose|gzip|gunzip|bzip2|xz|zstd|lzma|lzip|auto-compress|wildcards|no-wildcards|anchored|no-anchored|exclude|numeric-owner|utc|full-time|force-local|occurrence|quoting-style|ignore-case|show-transformed-names|null|verbatim-files-from|totals|block-number|no-recursion|recursion|strip-components|warning)(=|$)/;

/** tar long options above whose value is the next word. */
const TAR_LONG_WITH_VALUE = new Set(['--exclude', '--occurrence', '--strip-components', '--quoting-style', '--warning']);

/** Why a tar command does more than list an archive, or null. */
export function tarProblem(args: readonly Word[]): string | null {
  let listing = false;
  let archive: string | null = null;
  const letters = (cluster: string, at: number): string | null => {
    for (const c of cluster) {
      if (!TAR_LIST_LETTERS.has(c)) return `\`tar\` with \`${c}\` does more than list an archive`;
      if (c === 't') listing = true;
      if (c === 'f') archive = args[at + 1]?.value ?? archive;
    }
    return null;
  };
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v.startsWith('--')) {
      if (!TAR_LIST_LONG.test(v)) return `\`tar ${v}\` may write files or run a program`;
      if (v === '--list') listing = true;
      if (v.startsWith('--file=')) archive = v.slice('--file='.length);
      else if (v === '--file') archive = args[++i]?.value ?? null;
      else if (TAR_LONG_WITH_VALUE.has(v)) i++;
    } else if (v.startsWith('-') || i === 0) {
      const cluster = v.replace(/^-/, '');
      const fAt = cluster.indexOf('f');
      // `-fARCHIVE`: the rest of a dashed cluster after f is its value.
      if (v.startsWith('-') && fAt !== -1 && fAt < cluster.length - 1) {
        const bad = letters(cluster.slice(0, fAt), i);
        if (bad) return bad;
        archive = cluster.slice(fAt + 1);
        continue;
      }
      const bad = letters(cluster, i);
      if (bad) return bad;
      if (fAt !== -1) i++;
    }
  }
  if (!listing) return '`tar` without `-t` extracts or creates an archive';
  if (archive !== null && /:/.test(archive) && !args.some((w) => w.value === '--force-local')) return `\`tar -f ${archive}\` names a remote archive, which tar reaches by running a remote shell`;
  return null;
}
