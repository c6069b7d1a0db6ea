// Reads the expansions inside words: `$NAME`, `${…}`, `$(…)`, `$((…))`, `$'…'`, backticks and
// process substitutions. Substitutions are parsed as scripts by the grammar in the subclass.
import type { Script } from './ast.js';
import { MAX_NESTING_DEPTH, newBuilder, Scanner, type WordBuilder } from './lexer.js';

/** Single-character `$` parameters: `$1`, `$@`, `$?`, … */
const SPECIAL_PARAMS = new Set(['@', '*', '#', '?', '-', '$', '!', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

/** The one-letter escapes of `$'…'` strings. */
const ANSI_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** `$0`…`$9`, `$#`, `$?` and the like: their values are numbers or set by bash, never code. */
const SPECIAL_PARAM_REFS = /\$[0-9#?$!@*-]/g;

/**
 * True if arithmetic text names a variable (or runs a command): bash evaluates a variable's value
 * as arithmetic too, and `a[$(cmd)]` hidden in it runs `cmd`. Numbers and `$#`-style params are safe.
 */
export function usesVariables(expr: string): boolean {
  return /[A-Za-z_`]/.test(expr.replace(SPECIAL_PARAM_REFS, ''));
}

/** The parameter name at the start of a `${…}` body, after an optional `#` (length) or `!` (indirection). */
const PARAM_NAME = /^[#!]?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/;

/** True if a `${…}` body (without the braces) evaluates something: an index, a substring offset, `@P` or zsh flags. */
function braceEvaluates(body: string): boolean {
  // zsh parameter flags: `${(e)x}` evaluates the value.
  if (body.startsWith('(')) return true;
  const name = PARAM_NAME.exec(body);
  if (!name) return false;
  let rest = body.slice(name[0].length);
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    const index = rest.slice(1, end === -1 ? rest.length : end);
    if (index !== '@' && index !== '*' && usesVariables(index)) return true;
    rest = end === -1 ? '' : rest.slice(end + 1);
  }
  if (rest.startsWith(':') && !'-=?+'.includes(rest[1] ?? '-')) return usesVariables(rest.slice(1));
  return rest === '@P';
}

/** Scans expansions; the grammar that parses `$(…)` and backtick text lives in the subclass. */
export abstract class ExpansionScanner extends Scanner {
  /** Parses a command list at `pos` up to and including the closing `)`. */
  protected abstract parseSubstitution(): Script;
  /** Parses the text of a backtick substitution, which starts at `offset` of `src`. */
  protected abstract parseNested(text: string, offset: number): Script;

  /** Reads whatever starts with `$` at `pos`: `$'…'`, `$"…"`, `$(…)`, `$((…))`, `${…}`, `$[…]`, `$NAME`. */
  protected readDollar(w: WordBuilder, quoted: boolean): void {
    const start = this.pos;
    const n = this.peek(1);
    if (n === "'" && !quoted) return this.readAnsiC(w);
    if (n === '"' && !quoted) {
      this.pos++;
      return this.readDoubleQuoted(w);
    }
    if (n === '(') {
      if (this.peek(2) === '(' && this.looksArithmetic(this.pos + 3)) {
        this.pos += 3;
        const inner = newBuilder(false);
        if (!this.readArithBody(inner)) this.fail('unbalanced $(( arithmetic', start);
        return this.addExpansion(w, start, inner.subs, quoted, inner.evaluates || usesVariables(this.src.slice(start + 3, this.pos - 2)));
      }
      this.pos += 2;
      this.enter();
      const body = this.parseSubstitution();
      this.leave();
      return this.addExpansion(w, start, [body], quoted);
    }
    if (n === '{') return this.readBraceParam(w, quoted);
    if (n === '[') {
      const end = this.src.indexOf(']', this.pos + 2);
      if (end === -1) this.fail('unterminated $[ arithmetic');
      this.pos = end + 1;
      return this.addExpansion(w, start, [], quoted, usesVariables(this.src.slice(start + 2, end)));
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.pos + 1, this.pos + 256));
    if (name) {
      this.pos += 1 + name[0].length;
      return this.addExpansion(w, start, [], quoted);
    }
    if (SPECIAL_PARAMS.has(n)) {
      this.pos += 2;
      return this.addExpansion(w, start, [], quoted);
    }
    w.value += '$';
    this.pos++;
  }

  protected addExpansion(w: WordBuilder, start: number, subs: Script[], quoted: boolean, evaluates = false): void {
    w.value += this.src.slice(start, this.pos);
    w.subs.push(...subs);
    if (evaluates) w.evaluates = true;
    this.markExpansion(w, !quoted);
  }

  /**
   * True if the text from `from` (just after `((` or `$((`) closes with `))` at its own level, so it
   * is arithmetic and not `$( (…) )`. A flat scan, quotes skipped: deciding must not parse, or
   * nested `$((` would be parsed twice per level, exponentially.
   */
  protected looksArithmetic(from: number): boolean {
    let level = 0;
    for (let i = from; i < this.src.length; i++) {
      const c = this.src[i]!;
      if (c === '(') level++;
      else if (c === ')') {
        if (level === 0) return this.src[i + 1] === ')';
        level--;
      } else if (c === '\\') i++;
      else if (c === "'" || c === '"') {
        const end = this.src.indexOf(c, i + 1);
        if (end === -1) return false;
        i = end;
      }
    }
    return false;
  }

  /**
   * Scans an arithmetic body just after its opening `((` up to the matching `))`, collecting
   * substitutions. False (position undefined) if the parens close singly: then it was `$( (…) )`.
   */
  protected readArithBody(w: WordBuilder): boolean {
    let level = 0;
    while (!this.atEnd()) {
      const c = this.peek();
      if (c === '(') {
        level++;
        this.pos++;
      } else if (c === ')') {
        if (level === 0) {
          if (this.peek(1) !== ')') return false;
          this.pos += 2;
          return true;
        }
        level--;
        this.pos++;
      } else if (c === '$') this.readDollar(w, true);
      else if (c === '`') this.readBacktick(w, true);
      else if (c === '"') this.readDoubleQuoted(w);
      else if (c === '\\') this.pos += 2;
      else this.pos++;
    }
    return false;
  }

  private readBraceParam(w: WordBuilder, quoted: boolean): void {
    const start = this.pos;
    const inner = newBuilder(false);
    this.enter();
    this.pos += 2;
    for (;;) {
      if (this.atEnd()) this.fail('unterminated ${', start);
      const c = this.peek();
      if (c === '}') {
        this.pos++;
        break;
      }
      if (c === '\\') this.pos += 2;
      else if (c === "'" && !quoted) {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) this.fail('unterminated single quote');
        this.pos = end + 1;
      } else if (c === '"') this.readDoubleQuoted(inner);
      else if (c === '$') this.readDollar(inner, true);
      else if (c === '`') this.readBacktick(inner, true);
      else this.pos++;
    }
    this.leave();
    this.addExpansion(w, start, inner.subs, quoted, inner.evaluates || braceEvaluates(this.src.slice(start + 2, this.pos - 1)));
  }

  /** Reads `` `…` ``: unescapes the text as bash does, then parses it as its own script. */
  protected readBacktick(w: WordBuilder, quoted: boolean): void {
    const start = this.pos;
    this.pos++;
    let text = '';
    for (;;) {
      if (this.atEnd()) this.fail('unterminated backtick substitution', start);
      const c = this.peek();
      if (c === '`') {
        this.pos++;
        break;
      }
      const n = this.peek(1);
      if (c === '\\' && (n === '`' || n === '\\' || n === '$' || (quoted && n === '"'))) {
        text += n;
        this.pos += 2;
      } else {
        text += c;
        this.pos++;
      }
    }
    if (this.depth + 1 > MAX_NESTING_DEPTH) this.fail(`nested deeper than ${MAX_NESTING_DEPTH} levels`, start);
    this.addExpansion(w, start, [this.parseNested(text, start + 1)], quoted);
  }

  protected readProcessSubstitution(w: WordBuilder): void {
    const start = this.pos;
    this.pos += 2;
    this.enter();
    const body = this.parseSubstitution();
    this.leave();
    this.addExpansion(w, start, [body], true);
  }

  /** Reads `$'…'`, decoding its escapes: `$'\x72m'` is the literal word `rm`. */
  private readAnsiC(w: WordBuilder): void {
    const d = decodeAnsiC(this.src, this.pos + 2);
    if (d === null) this.fail("unterminated $' string");
    w.value += d.value;
    this.pos = d.end;
  }
}

/**
 * Decodes the body of a `$'…'` string starting at `from` (just after the opening quote): the
 * text and the offset after the closing quote; null when it does not close.
 * @example decodeAnsiC("$'\\x72m'", 2) // {value: 'rm', end: 8}
 */
export function decodeAnsiC(src: string, from: number): { value: string; end: number } | null {
  let value = '';
  let pos = from;
  const numeric = (c: string, re: RegExp, radix: number): string => {
    const m = re.exec(src.slice(pos, pos + 10))!;
    pos += m[0].length;
    const digits = radix === 8 ? m[0] : m[0].slice(1);
    return digits === '' ? `\\${c}` : String.fromCodePoint(Math.min(parseInt(digits, radix), 0x10ffff));
  };
  for (;;) {
    if (pos >= src.length) return null;
    const c = src[pos++]!;
    if (c === "'") return { value, end: pos };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const e = src[pos] ?? '';
    if (e in ANSI_ESCAPES) {
      pos++;
      value += ANSI_ESCAPES[e]!;
    } else if (e === 'x') value += numeric(e, /^x[0-9A-Fa-f]{0,2}/, 16);
    else if (e === 'u') value += numeric(e, /^u[0-9A-Fa-f]{0,4}/, 16);
    else if (e === 'U') value += numeric(e, /^U[0-9A-Fa-f]{0,8}/, 16);
    else if (e >= '0' && e <= '7') value += numeric(e, /^[0-7]{1,3}/, 8);
    else if (e === 'c' && pos + 1 < src.length) {
      pos += 2;
      value += String.fromCharCode(src.charCodeAt(pos - 1) & 0x1f);
    } else {
      pos++;
      value += `\\${e}`;
    }
  }
}
