// The set of absolute paths an expanded word can name, segment by segment: exact names, globs
// (one segment), `**` (any depth) or anything at all; and the questions the gate asks of such a set.
import type { Field, Piece } from './expand.js';
import { normalizePath } from './paths.js';

/** One step of a glob segment: a known character, any one character, or any run of characters a class allows. */
type Token = { ch: string } | { one: true } | { run: (c: string) => boolean };

/** A glob segment: the tokens it matches with, and whether it may match a name starting with `.` only as written. */
export interface GlobSegment {
  glob: string;
  tokens: Token[];
  /** Starts with a wildcard: then it never matches `.` or `..` (bash excludes them even with dotglob). */
  guarded: boolean;
}

/** One segment of a path pattern. */
type Segment = { exact: string } | GlobSegment | { deep: true };

/** The absolute paths a target can be: any path at all, or those matching the segments. */
export type PathPattern = { any: true } | { any: false; segments: Segment[] };

export const ANY_PATH: PathPattern = { any: true };

/**
 * The patterns a field names, resolved against each directory the command may run in (null:
 * unknown). A part only known at run time can hold `/` and `..`, so it makes the path anything.
 * @example toPatterns([{kind: 'text', text: 'src/'}, {kind: 'glob', text: '*'}], ['/w']) // /w/src/*
 */
export function toPatterns(field: Field, cwds: readonly string[] | null): PathPattern[] {
  if (field.some((p) => p.kind === 'any')) return [ANY_PATH];
  const first = field[0];
  if (first?.kind === 'text' && first.text.startsWith('/')) return [viaProc(build(field))];
  if (cwds === null) return [ANY_PATH];
  return cwds.map((cwd) => viaProc(build([{ kind: 'text', text: `${cwd}/` }, ...field])));
}

/** `/proc/self/cwd/…`, `/proc/1/root/…`: paths under /proc can name any file. */
function viaProc(p: PathPattern): PathPattern {
  if (p.any) return p;
  const first = p.segments[0];
  if (!first || (p.segments.length === 1 && !('deep' in first))) return p;
  const proc = 'exact' in first ? first.exact === 'proc' : 'deep' in first || matchesGlob(first, 'proc');
  return proc ? ANY_PATH : p;
}

function build(field: Field): PathPattern {
  const raw: Piece[][] = [[]];
  for (const p of field) {
    if (p.kind !== 'text') {
      raw[raw.length - 1]!.push(p);
      continue;
    }
    const parts = p.text.split('/');
    parts.forEach((t, n) => {
      if (n > 0) raw.push([]);
      if (t !== '') raw[raw.length - 1]!.push({ kind: 'text', text: t });
    });
  }
  const segments: Segment[] = [];
  for (const pieces of raw) {
    if (pieces.length === 0) continue;
    const seg = segment(pieces);
    if ('exact' in seg && seg.exact === '.') continue;
    if ('exact' in seg && seg.exact === '..') {
      const prev = segments.pop();
      // `**/..` can climb above where `**` started.
      if (prev && 'deep' in prev) return ANY_PATH;
      continue;
    }
    // A glob written with a leading `.` may match `.` or `..` (bash before 5.2), which leaves the folder.
    if ('tokens' in seg && (matchesGlob(seg, '.') || matchesGlob(seg, '..'))) return ANY_PATH;
    segments.push(seg);
  }
  return { any: false, segments };
}

function segment(pieces: Piece[]): Segment {
  if (pieces.every((p) => p.kind === 'text')) return { exact: pieces.map((p) => (p as { text: string }).text).join('') };
  if (pieces.length === 1 && pieces[0]!.kind === 'glob' && pieces[0]!.text === '**') return { deep: true };
  const tokens: Token[] = [];
  let glob = '';
  for (const p of pieces) {
    if (p.kind === 'text') {
      for (const ch of p.text.toLowerCase()) tokens.push({ ch });
      glob += p.text;
    } else if (p.kind === 'digits') {
      tokens.push({ run: (c) => (c >= '0' && c <= '9') || c === '-' });
      glob += '*';
    } else if (p.kind === 'glob') {
      tokens.push(p.text === '?' || p.text === '[]' ? { one: true } : { run: () => true });
      glob += p.text;
    }
  }
  return { glob, tokens, guarded: pieces[0]!.kind !== 'text' };
}

/**
 * True if the glob segment matches `name`, case folded. Dynamic programming over the tokens, so
 * the time is their number times the name's length, whatever the stars (a backtracking regular
 * expression would take exponential time on `*a*a*a…b`).
 */
export function matchesGlob(seg: GlobSegment, name: string): boolean {
  if (seg.guarded && (name === '.' || name === '..')) return false;
  const s = name.toLowerCase();
  let prev: boolean[] = Array.from({ length: s.length + 1 }, (_, j) => j === 0);
  for (const t of seg.tokens) {
    const cur: boolean[] = new Array<boolean>(s.length + 1).fill(false);
    for (let j = 0; j <= s.length; j++) {
      if ('run' in t) cur[j] = prev[j]! || (j > 0 && cur[j - 1]! && t.run(s[j - 1]!));
      else if (j > 0) cur[j] = prev[j - 1]! && ('one' in t || t.ch === s[j - 1]);
    }
    prev = cur;
  }
  return prev[s.length]!;
}

/** Folds a path for comparison with protected paths: macOS and Windows file systems ignore case and normalise Unicode. */
export function foldPath(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

/**
 * How the pattern can meet the protected path `protectedPath` (absolute, normalised): a match
 * inside it (or equal), or, for a recursive operation, a match that holds it. Case is folded.
 */
export function reaches(p: PathPattern, protectedPath: string, recursive: boolean): 'inside' | 'holds' | null {
  if (p.any) return 'inside';
  const target = foldPath(protectedPath).split('/').filter(Boolean);
  const segs = p.segments;
  let states = closure(new Set([0]), segs);
  for (const name of target) {
    if (recursive && states.has(segs.length)) return 'holds';
    const next = new Set<number>();
    for (const s of states) {
      const seg = segs[s];
      if (seg === undefined) continue;
      if ('deep' in seg) next.add(s);
      else if ('exact' in seg ? foldPath(seg.exact) === name : matchesGlob(seg, name)) next.add(s + 1);
    }
    if (next.size === 0) return null;
    states = closure(next, segs);
  }
  return 'inside';
}

/** True if the pattern can name a path outside `root` (absolute, normalised; case is kept). */
export function canLeave(p: PathPattern, root: string): boolean {
  if (p.any) return true;
  const inside = normalizePath(root).split('/').filter(Boolean);
  const segs = p.segments;
  let states = closure(new Set([0]), segs);
  for (const name of inside) {
    if (states.has(segs.length)) return true;
    const next = new Set<number>();
    for (const s of states) {
      const seg = segs[s]!;
      if ('exact' in seg && seg.exact !== name) return true;
      if (!('exact' in seg)) return true;
      next.add(s + 1);
    }
    states = closure(next, segs);
  }
  return false;
}

/** Adds the states reached by letting each `**` match no segment. */
function closure(states: Set<number>, segs: readonly Segment[]): Set<number> {
  for (const s of [...states]) {
    for (let k = s; k < segs.length && 'deep' in segs[k]!; k++) states.add(k + 1);
  }
  return states;
}
