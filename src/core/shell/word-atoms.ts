// Reads a word's source text the way bash's expansion sees it: characters (active when unquoted),
// parameters and numbers; and bash's brace expansion over those. expand.ts does the rest.
import { decodeAnsiC } from './expansions.js';

/**
 * Most words a brace expansion may make; past it the word is taken to be anything. Real
 * commands stay far below; the bound keeps `{a,b}{c,d}…` from growing exponentially.
 */
const MAX_BRACE_WORDS = 64;

/** Special parameters whose value is a number. */
const NUMERIC_SPECIALS = new Set(['$', '#', '?', '!']);

/** One lexed unit of a word: a character (active when unquoted) or a parameter. */
export type Atom = { ch: string; active: boolean } | { param: string; quoted: boolean } | { digits: true };

/** Splits a word's source text into atoms; null when something in it is only known at run time. */
export function lex(src: string): Atom[] | null {
  const out: Atom[] = [];
  const chars = (s: string, active: boolean): void => {
    for (const ch of s) out.push({ ch, active });
  };
  for (let i = 0; i < src.length;) {
    const c = src[i]!;
    if (c === '\\') {
      if (src[i + 1] !== '\n') chars(src[i + 1] ?? '\\', false);
      i += 2;
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end === -1) return null;
      chars(src.slice(i + 1, end), false);
      i = end + 1;
    } else if (c === '$' && src[i + 1] === "'") {
      const d = decodeAnsiC(src, i + 2);
      if (d === null) return null;
      chars(d.value, false);
      i = d.end;
    } else if (c === '"' || (c === '$' && src[i + 1] === '"')) {
      i += c === '"' ? 1 : 2;
      for (;;) {
        const q = src[i];
        if (q === undefined) return null;
        if (q === '"') break;
        if (q === '\\' && '$`"\\\n'.includes(src[i + 1] ?? 'x')) {
          if (src[i + 1] !== '\n') chars(src[i + 1]!, false);
          i += 2;
        } else if (q === '$') {
          const p = param(src, i, true, out);
          if (p === null) return null;
          i = p;
        } else if (q === '`') return null;
        else {
          chars(q, false);
          i++;
        }
      }
      i++;
    } else if (c === '$') {
      const p = param(src, i, false, out);
      if (p === null) return null;
      i = p;
    } else if (c === '`' || ((c === '<' || c === '>') && src[i + 1] === '(')) return null;
    else if (c === '(' && i > 0 && '?*+@!'.includes(src[i - 1]!))
      return null; // an extglob group
    else {
      chars(c, true);
      i++;
    }
  }
  return out;
}

/** Reads the parameter at `src[i]` (a `$`) into `out`; the offset after it, or null when it is not a plain parameter. */
function param(src: string, i: number, quoted: boolean, out: Atom[]): number | null {
  const m = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*|[$#?!]|#[A-Za-z_][A-Za-z0-9_]*)\}|([$#?!]))/.exec(src.slice(i, i + 256));
  if (!m) {
    // A lone `$` (before a space, a quote or the end) is itself.
    if (!/^\$[A-Za-z0-9_{(@*#?$!-]/.test(src.slice(i, i + 2))) {
      out.push({ ch: '$', active: !quoted });
      return i + 1;
    }
    if (src.startsWith('$((', i)) return arithmeticEnd(src, i + 3, out);
    return null;
  }
  const name = m[1] ?? m[2] ?? m[3]!;
  if (NUMERIC_SPECIALS.has(name) || name.startsWith('#')) out.push({ digits: true });
  else out.push({ param: name, quoted });
  return i + m[0].length;
}

/** Skips a `$((…))` whose body substitutes nothing; its value is a number. */
function arithmeticEnd(src: string, from: number, out: Atom[]): number | null {
  let level = 0;
  for (let i = from; i < src.length; i++) {
    const c = src[i]!;
    if (c === '$' || c === '`' || c === '"' || c === "'") return null;
    if (c === '(') level++;
    else if (c === ')') {
      if (level > 0) level--;
      else if (src[i + 1] === ')') {
        out.push({ digits: true });
        return i + 2;
      } else return null;
    }
  }
  return null;
}

/** Bash's brace expansion over active `{`, `,` and `}`; null when it would make too many words. */
export function braceExpand(atoms: Atom[]): Atom[][] | null {
  const active = (k: number, ch: string): boolean => {
    const a = atoms[k];
    return a !== undefined && 'ch' in a && a.active && a.ch === ch;
  };
  for (let open = 0; open < atoms.length; open++) {
    if (!active(open, '{') || (open > 0 && active(open - 1, '$'))) continue;
    let depth = 0;
    const commas: number[] = [];
    for (let k = open + 1; k < atoms.length; k++) {
      if (active(k, '{')) depth++;
      else if (active(k, '}') && depth > 0) depth--;
      else if (active(k, ',') && depth === 0) commas.push(k);
      else if (active(k, '}')) {
        const inner = atoms.slice(open + 1, k);
        let parts: Atom[][];
        if (commas.length > 0) {
          parts = [...commas, k].map((end, n) => atoms.slice(n === 0 ? open + 1 : commas[n - 1]! + 1, end));
        } else {
          const seq = sequence(inner);
          if (seq === undefined) break;
          if (seq === null) return null;
          parts = seq.map((s) => [...s].map((ch) => ({ ch, active: false })));
        }
        const out: Atom[][] = [];
        for (const p of parts) {
          const rest = braceExpand([...atoms.slice(0, open), ...p, ...atoms.slice(k + 1)]);
          if (rest === null) return null;
          out.push(...rest);
          if (out.length > MAX_BRACE_WORDS) return null;
        }
        return out;
      }
    }
  }
  return [atoms];
}

/** `{1..5}`, `{a..e}`, `{0..10..2}`: the words of a sequence; undefined when `inner` is not one, null when too long. */
function sequence(inner: Atom[]): string[] | null | undefined {
  const text = inner.map((a) => ('ch' in a ? a.ch : '\0')).join('');
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  if (!m) return undefined;
  const numeric = /\d/.test(m[1]!);
  if (numeric !== /\d/.test(m[2]!)) return undefined;
  // Zero-padded sequences (`{01..10}`) are not worth spelling out exactly: any number will do.
  if (/^-?0\d/.test(m[1]!) || /^-?0\d/.test(m[2]!)) return null;
  const from = numeric ? Number(m[1]) : m[1]!.charCodeAt(0);
  const to = numeric ? Number(m[2]) : m[2]!.charCodeAt(0);
  const step = Math.abs(Number(m[3] ?? 1)) || 1;
  if (Math.abs(to - from) / step + 1 > MAX_BRACE_WORDS) return null;
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) out.push(numeric ? String(v) : String.fromCharCode(v));
  return out;
}
