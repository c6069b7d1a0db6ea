// Expands a word as bash would, as far as the command line itself tells: brace lists, `~`, variables
// with known values, globs kept as patterns; anything else (a substitution, an unknown variable) is "any".
import type { Word } from './ast.js';
import { braceExpand, lex, type Atom } from './word-atoms.js';

/** One piece of an expanded word. */
export type Piece =
  /** Known characters. */
  | { kind: 'text'; text: string }
  /** An active glob: `*`, `**`, `?` or a bracket expression. */
  | { kind: 'glob'; text: string }
  /** A number only known at run time (`$$`, `$RANDOM`, `$((…))`): digits and a sign, never `/`. */
  | { kind: 'digits' }
  /** Anything at all, `/` and `..` included. */
  | { kind: 'any' };

/** One word after expansion, as pieces. */
export type Field = Piece[];

/** What the expander knows about the shell's variables at this point of the command line. */
export interface ExpandEnv {
  /**
   * The possible values of `name` (each a field, as assigned); null when unknown; undefined when
   * the command line did not assign it (then only HOME and PWD are known, from the session).
   */
  lookup(name: string): Field[] | null | undefined;
  /** IFS was assigned, so unquoted expansions split in ways not tracked. */
  ifsChanged: boolean;
}

/** The fields a word expands to; `exact` when they are exactly the words bash passes (no alternatives). */
export interface Expansion {
  fields: Field[];
  exact: boolean;
}

/**
 * Most fields one word may expand to (brace lists, splitting, alternative values); past it the
 * word is taken to be anything. Real commands stay far below; the bound keeps `{a,b}{c,d}…` linear.
 */
export const MAX_FIELDS = 64;

/** Variables bash sets to numbers (and that were not assigned in the command line). */
const NUMERIC_VARIABLES = new Set(['RANDOM', 'SRANDOM', 'SECONDS', 'LINENO', 'BASHPID', 'PPID', 'UID', 'EUID', 'EPOCHSECONDS', 'SHLVL']);

const ANY: Expansion = { fields: [[{ kind: 'any' }]], exact: false };

/**
 * Expands `w` (`assignment`: the value of `NAME=…`, where only `~` and parameters expand).
 * @example expandWord(word('~/x'), env).fields // [[{kind: 'text', text: '/home/u/x'}]] when HOME is known
 */
export function expandWord(w: Word, env: ExpandEnv, assignment = false): Expansion {
  if (w.literal) return { fields: [[{ kind: 'text', text: w.value }]], exact: true };
  if (w.subs.length > 0 || w.evaluates) return ANY;
  const atoms = lex(w.text);
  if (atoms === null) return ANY;
  const braced = assignment ? [atoms] : braceExpand(atoms);
  if (braced === null) return ANY;
  const out: Field[] = [];
  let exact = true;
  for (const alt of braced) {
    const r = expandAtoms(tilde(alt, assignment), env, assignment);
    if (r === null) return ANY;
    exact &&= r.exact;
    out.push(...r.fields);
    if (out.length > MAX_FIELDS) return ANY;
  }
  return { fields: out, exact };
}

/** The field's text when it is fully known (no glob, no unknown part), else null. */
export function fieldText(f: Field): string | null {
  let s = '';
  for (const p of f) {
    if (p.kind !== 'text') return null;
    s += p.text;
  }
  return s;
}

/** Replaces a leading `~` (and, in an assignment, one after each `:`) by a parameter for the home folder. */
function tilde(atoms: Atom[], assignment: boolean): Atom[] {
  const out: Atom[] = [];
  // An argument shaped like an assignment (`dd of=~/x`, `export D=~/x`) has its tildes expanded like one.
  const eq = assignment ? -1 : assignmentEquals(atoms);
  const likeAssignment = assignment || eq !== -1;
  for (let k = 0; k < atoms.length; k++) {
    const a = atoms[k]!;
    const prev = atoms[k - 1];
    const atStart = k === 0 || k === eq + 1 || (likeAssignment && k > eq && prev !== undefined && 'ch' in prev && prev.ch === ':' && prev.active);
    if (!('ch' in a) || a.ch !== '~' || !a.active || !atStart) {
      out.push(a);
      continue;
    }
    let end = k + 1;
    while (end < atoms.length && isPlain(atoms[end]) && (atoms[end] as { ch: string }).ch !== '/') end++;
    const user = atoms
      .slice(k + 1, end)
      .map((x) => ('ch' in x ? x.ch : ''))
      .join('');
    // `~$X` and `~"x"` are not tilde prefixes: the `~` stays a character.
    if (end < atoms.length && !isActive(atoms[end], '/')) out.push({ ch: '~', active: false });
    else {
      // `~` is $HOME, `~+` is $PWD; `~-` and `~user` are folders this command line does not name.
      out.push({ param: user === '' ? 'HOME' : user === '+' ? 'PWD' : '\0unknown', quoted: true });
      k = end - 1;
    }
  }
  return out;
}

/** Substitutes parameters, splits unquoted values and turns active glob characters into glob pieces. */
function expandAtoms(atoms: Atom[], env: ExpandEnv, assignment: boolean): Expansion | null {
  // Each alternative is a list of fields under construction; `open` says whether the last field may still grow.
  let alts: { fields: Field[]; started: boolean }[] = [{ fields: [[]], started: false }];
  let exact = true;
  for (let k = 0; k < atoms.length; k++) {
    const a = atoms[k]!;
    if ('digits' in a) {
      for (const alt of alts) pushPiece(alt, { kind: 'digits' });
      continue;
    }
    if ('ch' in a) {
      if (a.active && !assignment && (a.ch === '*' || a.ch === '?' || a.ch === '[')) {
        const end = a.ch === '[' ? bracketEnd(atoms, k) : k;
        const text = a.ch === '*' && isActive(atoms[k + 1], '*') ? '**' : a.ch === '[' ? '[]' : a.ch;
        if (text === '**') k++;
        // A `[` that does not close is an ordinary character.
        const piece: Piece = a.ch === '[' && end === k ? { kind: 'text', text: '[' } : { kind: 'glob', text };
        k = Math.max(k, end);
        for (const alt of alts) pushPiece(alt, piece);
      } else for (const alt of alts) pushPiece(alt, { kind: 'text', text: a.ch });
      continue;
    }
    const known = env.lookup(a.param);
    const values = known !== undefined ? known : NUMERIC_VARIABLES.has(a.param) ? [[{ kind: 'digits' } as Piece]] : null;
    if (values === null) return null;
    if (values.length !== 1) exact = false;
    const next: typeof alts = [];
    for (const alt of alts) {
      for (const v of values) {
        const copy = { fields: alt.fields.map((f) => [...f]), started: alt.started };
        if (!substitute(copy, v, a.quoted || assignment, env)) return null;
        next.push(copy);
      }
      if (next.length > MAX_FIELDS) return null;
    }
    alts = next;
  }
  const fields: Field[] = [];
  for (const alt of alts) {
    // An unquoted expansion that came to nothing leaves no word at all.
    const last = alt.fields[alt.fields.length - 1]!;
    if (last.length === 0 && !alt.started) alt.fields.pop();
    fields.push(...alt.fields.map(mergeText));
  }
  return { fields, exact };
}

/** The index of the `=` of an argument that starts `NAME=` (unquoted), or -1. */
function assignmentEquals(atoms: Atom[]): number {
  let k = 0;
  while (k < atoms.length && isPlain(atoms[k]) && /[A-Za-z0-9_]/.test((atoms[k] as { ch: string }).ch)) k++;
  const first = atoms[0];
  const named = k > 0 && first !== undefined && 'ch' in first && !/[0-9]/.test(first.ch);
  return named && isActive(atoms[k], '=') ? k : -1;
}

function isPlain(a: Atom | undefined): boolean {
  return a !== undefined && 'ch' in a && a.active;
}

function isActive(a: Atom | undefined, ch: string): boolean {
  return a !== undefined && 'ch' in a && a.active && a.ch === ch;
}

/** The index of the `]` closing a bracket expression opened at `k`, or `k` when it does not close (then `[` is itself). */
function bracketEnd(atoms: Atom[], k: number): number {
  for (let e = k + 2; e < atoms.length; e++) {
    const a = atoms[e]!;
    if (!('ch' in a) || a.ch === '/') return k;
    if (a.ch === ']') return e;
  }
  return k;
}

function pushPiece(alt: { fields: Field[]; started: boolean }, p: Piece): void {
  alt.fields[alt.fields.length - 1]!.push(p);
  alt.started = true;
}

/** Adds one value of a parameter; unquoted, its whitespace splits words and its glob characters are active. */
function substitute(alt: { fields: Field[]; started: boolean }, value: Field, quoted: boolean, env: ExpandEnv): boolean {
  if (quoted) {
    for (const p of value) pushPiece(alt, p);
    if (value.length === 0) alt.started = true;
    return true;
  }
  if (env.ifsChanged) return false;
  for (const p of value) {
    if (p.kind !== 'text') {
      pushPiece(alt, p);
      continue;
    }
    for (const ch of p.text) {
      if (ch === ' ' || ch === '\t' || ch === '\n') {
        if (alt.fields[alt.fields.length - 1]!.length > 0) alt.fields.push([]);
        alt.started = false;
      } else if (ch === '*' || ch === '?' || ch === '[') pushPiece(alt, { kind: 'glob', text: ch === '[' ? '[]' : ch });
      else pushPiece(alt, { kind: 'text', text: ch });
    }
  }
  return true;
}

function mergeText(f: Field): Field {
  const out: Field = [];
  for (const p of f) {
    const last = out[out.length - 1];
    if (p.kind === 'text' && last?.kind === 'text') out[out.length - 1] = { kind: 'text', text: last.text + p.text };
    else out.push(p);
  }
  return out;
}
