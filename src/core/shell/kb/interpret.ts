// Reads the knowledge base (one data file per tool family) for one command: finds the entry its
// subcommand words match and checks every flag and argument against it. Unknown means ask.
import type { Word } from '../ast.js';
import { longMatches } from '../command-line.js';
import { awkProblem, sedProblem, tarProblem } from './script-checks.js';
import type { KbEntry, ScriptCheck, ToolKb } from './types.js';
import { KNOWLEDGE } from './families.js';
import { GIT } from './git.js';
import { VERSION_ONLY } from './tools.js';

/** What the knowledge base says about one command: why it needs a person (null: it only reads), and the entry that decided. */
export interface KbVerdict {
  problem: string | null;
  /** `kubectl get`, `aws * describe-*`: the family and the entry's path. */
  entry: string;
}

const CHECKS: Record<ScriptCheck, (args: readonly Word[]) => string | null> = {
  sed: sedProblem,
  awk: awkProblem,
  tar: tarProblem,
};

/** A lone argument that makes any known tool print its version or usage and exit. */
const INFO_ARGS = new Set(['--version', '--help', '-h', '-V', '-version', '-help']);

/** Program name → its family, built once at load. */
const BY_PROGRAM = new Map<string, ToolKb>(KNOWLEDGE.flatMap((kb) => kb.programs.map((p) => [p, kb] as const)));

/**
 * The knowledge base's verdict on `program args…`; null if no family covers the program.
 * @example kbVerdict('kubectl', words('get pods -n x')) // {problem: null, entry: 'kubectl get'}
 */
export function kbVerdict(program: string, args: readonly Word[]): KbVerdict | null {
  const kb = BY_PROGRAM.get(program);
  return kb ? judgeWith(kb, program, args) : null;
}

/** The verdict of the git family on `SUBCOMMAND ARGS` (read-only.ts handles git's own read list and globals first). */
export function gitKbVerdict(args: readonly Word[]): KbVerdict {
  return judgeWith(GIT, 'git', args);
}

function judgeWith(kb: ToolKb, program: string, args: readonly Word[]): KbVerdict {
  const only = args.length === 1 ? args[0]! : null;
  if (only?.literal && INFO_ARGS.has(only.value)) return { problem: null, entry: `${kb.family} ${only.value}` };
  const lead = leadWords(kb, args);
  if (typeof lead === 'string') return { problem: lead, entry: kb.family };
  const named = (e: KbEntry): string => (e.path ? `${kb.family} ${e.path}` : kb.family);
  const matches = kb.entries.map((e) => ({ e, len: longestPath(kb, e.path, lead.words) })).filter((m): m is { e: KbEntry; len: number } => m.len !== null);
  const shown = (len: number): string => [program, ...lead.words.slice(0, len).map((w) => w.value)].join(' ');
  const asked = matches.find((m) => m.e.class === 'ask');
  if (asked) return { problem: `\`${shown(asked.len)}\` ${asked.e.why}`, entry: named(asked.e) };
  const best = matches.reduce<{ e: KbEntry; len: number } | null>((b, m) => (b === null || m.len > b.len ? m : b), null);
  // A bare-program entry that takes no arguments does not cover `tool SUBCOMMAND`.
  if (kb === VERSION_ONLY && !best) return { problem: `\`${program}\` is not on the read-only list (only its --version and --help are)`, entry: kb.family };
  if (!best || (best.len === 0 && best.e.maxPositionals === 0 && lead.words.length > 0)) {
    const sub = shown(Math.min(2, lead.words.length));
    const why =
      lead.stop && lead.words.length === 0
        ? `\`${lead.stop}\` comes before the subcommand, and Gatehouse does not know it as a global flag of ${kb.family}`
        : `\`${sub}\` is not a subcommand Gatehouse knows to only read`;
    return { problem: why, entry: kb.family };
  }
  const rest = best.len === 0 ? args : args.slice(lead.indexes[best.len - 1]! + 1);
  return { problem: restProblem(kb, best.e, lead.words.slice(0, best.len), rest, shown(best.len)), entry: named(best.e) };
}

interface Lead {
  /** Positional words before the first flag that is not a global one. */
  words: Word[];
  /** Their indexes in the arguments. */
  indexes: number[];
  /** The flag that ended the scan, if one did. */
  stop: string | null;
}

/** The leading positional words, skipping the family's global flags; a reason string if a global flag is unsafe. */
function leadWords(kb: ToolKb, args: readonly Word[]): Lead | string {
  const words: Word[] = [];
  const indexes: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!w.literal) return `an argument (${w.text}) expands at run time and could turn into a flag or subcommand that writes or runs programs`;
    if (w.value === '--') break;
    if (!w.value.startsWith('-') || w.value === '-') {
      words.push(w);
      indexes.push(i);
      continue;
    }
    const name = w.value.split('=')[0]!;
    const bad = unsafeReason(kb.unsafe, w.value);
    if (bad) return bad;
    if (kb.globals?.values?.includes(name)) {
      if (!w.value.includes('=') && !looksLikeFlag(args[i + 1])) i++;
      continue;
    }
    if (kb.globals?.flags?.includes(name)) continue;
    return { words, indexes, stop: w.value };
  }
  return { words, indexes, stop: null };
}

/** How many lead words the longest of a path's `, `-separated alternatives takes, or null if none matches. */
function longestPath(kb: ToolKb, path: string, lead: readonly Word[]): number | null {
  const lens = path.split(', ').map((alt) => matchPath(kb, alt, lead));
  return lens.reduce<number | null>((best, n) => (n !== null && (best === null || n > best) ? n : best), null);
}

/** How many lead words the path pattern takes, or null if it does not match. */
function matchPath(kb: ToolKb, path: string, lead: readonly Word[]): number | null {
  const pattern = path === '' ? [] : path.split(' ');
  const go = (p: number, l: number): number | null => {
    if (p === pattern.length) return l;
    const pat = pattern[p]!;
    if (pat === '**') {
      // Non-greedy: a word that matches what follows ends the run of groups.
      const next = go(p + 1, l);
      if (next !== null) return next;
      const w = lead[l];
      return w && kb.groups?.includes(w.value) ? go(p, l + 1) : null;
    }
    const w = lead[l];
    return w && wordMatches(pat, w.value) ? go(p + 1, l + 1) : null;
  };
  return go(0, 0);
}

function wordMatches(pattern: string, value: string): boolean {
  return pattern.split('|').some((alt) => alt === '*' || alt === value || (alt.endsWith('*') && alt.length > 1 && value.startsWith(alt.slice(0, -1))));
}

/** The unsafe flag `token` is (GNU abbreviations included, unless the abbreviation is itself a known flag, as `--set` is beside `--set-file`). */
function unsafeReason(unsafe: Readonly<Record<string, string>> | undefined, token: string, known: ReadonlySet<string> = new Set()): string | null {
  if (!unsafe) return null;
  const name = token.split('=')[0]!;
  for (const [key, why] of Object.entries(unsafe)) {
    const hit = key.includes('=') ? token.startsWith(key) : key.startsWith('--') && !known.has(name) ? longMatches(name, key) : name === key;
    if (hit) return `\`${token}\` ${why}`;
  }
  return null;
}

/** Why the arguments after an approve entry's path need a person, or null. */
function restProblem(kb: ToolKb, e: KbEntry, path: readonly Word[], rest: readonly Word[], named: string): string | null {
  const values = new Set([...(e.values ?? []), ...(kb.globals?.values ?? [])]);
  const bools = new Set([...(e.flags === 'any' ? [] : (e.flags ?? [])), ...(kb.globals?.flags ?? [])]);
  const positionals: Word[] = [];
  const known = new Set([...values, ...bools]);
  const flagProblem = (token: string): string | null => unsafeReason(kb.unsafe, token, known) ?? unsafeReason(e.unsafe, token, known);
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    const v = w.value;
    if (!w.literal || v === '-' || !v.startsWith('-')) {
      if (!w.literal) return `an argument of \`${named}\` (${w.text}) expands at run time and could turn into a flag that writes or runs programs`;
      positionals.push(w);
      continue;
    }
    if (v === '--') {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    const bad = flagProblem(v);
    if (bad) return bad;
    const name = v.split('=')[0]!;
    const long = v.startsWith('--') || kb.longSingleDash === true;
    if (values.has(name)) {
      // A value that looks like a flag is judged as one: parsers differ on whether they take it.
      if (!v.includes('=') && !looksLikeFlag(rest[i + 1])) {
        const value = rest[++i];
        if (value && !value.literal && value.splits) return `the value of \`${name}\` (${value.text}) expands at run time and may split into more arguments`;
      }
      continue;
    }
    if (bools.has(name) || (long && e.flags === 'any')) continue;
    if (long) return `\`${named}\` with \`${v}\`: Gatehouse does not know that flag to only read`;
    const cluster = shortCluster(v, values, bools, e.flags === 'any', flagProblem);
    if (cluster === 'value' && !looksLikeFlag(rest[i + 1])) i++;
    else if (cluster !== null && cluster !== 'ok') return cluster.startsWith('`') ? cluster : `\`${named}\` with \`${cluster}\`: Gatehouse does not know that flag to only read`;
  }
  const given = (names: readonly string[]): boolean => rest.some((w) => names.includes(w.value.split('=')[0]!));
  if (e.requires && !given(e.requires)) return `\`${named}\` without ${e.requires.map((f) => `\`${f}\``).join(' or ')} writes files`;
  const more = e.positionalsWith !== undefined && given(e.positionalsWith);
  const extra = e.maxPositionals !== undefined && !more && positionals.length > e.maxPositionals ? positionals[e.maxPositionals] : undefined;
  if (extra) return `\`${named} ${extra.value}\` may change something (it takes ${e.maxPositionals === 0 ? 'no arguments' : `at most ${e.maxPositionals}`} when it only reads)`;
  const hit = e.askPositional && [...path, ...positionals].find((p) => e.askPositional!.match.test(p.value));
  if (hit) return `\`${named} ${hit.value}\` ${e.askPositional!.why}`;
  return e.check ? CHECKS[e.check](rest) : null;
}

function looksLikeFlag(w: Word | undefined): boolean {
  return w !== undefined && w.value.startsWith('-') && w.value !== '-';
}

/** A cluster of short flags (`-tulpn`, `-n5`): 'ok', 'value' (the next word is the last flag's value), or the flag (or reason) that is not safe. */
function shortCluster(v: string, values: Set<string>, bools: Set<string>, any: boolean, unsafe: (t: string) => string | null): string | null {
  for (let j = 1; j < v.length; j++) {
    const flag = `-${v[j]}`;
    const bad = unsafe(flag);
    if (bad) return bad;
    if (values.has(flag)) return j + 1 < v.length ? 'ok' : 'value';
    if (!bools.has(flag) && !any) return flag;
  }
  return 'ok';
}
