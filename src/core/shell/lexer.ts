// Character-level scanning for the shell parser: blanks, comments, words with their quotes
// and expansions, and heredoc bodies. parser.ts adds the grammar on top of this class.
import type { Script, Word } from './ast.js';

/**
 * Deepest nesting of substitutions, subshells, groups and compound commands. Real commands
 * stay below ten; the bound keeps a hostile input from exhausting the stack of the hook process.
 */
export const MAX_NESTING_DEPTH = 64;

/** A syntax error with the offset where it was found; parseShell turns it into a value. */
export class ShellSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * How far ahead a `[` or `{` looks for its `]` or `}` to tell a glob or brace list from a plain
 * character. Past this the word is treated as an expansion; the bound keeps scanning linear.
 */
const MAX_BRACKET_LOOKAHEAD = 256;

/** Characters that end an unquoted word (bash's metacharacters). */
const METACHARS = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);

/** A `(` right after one of these starts an extglob group such as `@(a|b)` or `!(x)`. */
const EXTGLOB_PREFIXES = new Set(['?', '*', '+', '@', '!']);

/** Single-character `$` parameters: `$1`, `$@`, `$?`, … */
const SPECIAL_PARAMS = new Set(['@', '*', '#', '?', '-', '$', '!', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

/** The one-letter escapes of `$'…'` strings. */
const ANSI_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** The parts of a word collected while scanning it. */
export interface WordBuilder {
  value: string;
  literal: boolean;
  splits: boolean;
  subs: Script[];
}

/** Scans characters of `src`; the grammar (and so the parsing of `$(…)`) lives in the subclass. */
export abstract class Scanner {
  protected pos = 0;

  constructor(
    protected readonly src: string,
    protected depth: number,
  ) {}

  /** Parses a command list at `pos` up to and including the closing `)`. */
  protected abstract parseSubstitution(): Script;
  /** Parses the text of a backtick substitution, which starts at `offset` of `src`. */
  protected abstract parseNested(text: string, offset: number): Script;

  protected fail(message: string, at = this.pos): never {
    throw new ShellSyntaxError(message, at);
  }

  protected peek(ahead = 0): string {
    return this.src[this.pos + ahead] ?? '';
  }

  protected atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  protected enter(): void {
    this.depth++;
    if (this.depth > MAX_NESTING_DEPTH) this.fail(`nested deeper than ${MAX_NESTING_DEPTH} levels`);
  }

  protected leave(): void {
    this.depth--;
  }

  /** Skips spaces, tabs and backslash-newline continuations. */
  protected skipBlanks(): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t') this.pos++;
      else if (c === '\\' && this.peek(1) === '\n') this.pos += 2;
      else return;
    }
  }

  /** Skips a `#` comment up to (not including) the newline; call only at a word start. */
  protected skipComment(): void {
    if (this.peek() !== '#') return;
    const nl = this.src.indexOf('\n', this.pos);
    this.pos = nl === -1 ? this.src.length : nl;
  }

  /** Reads one unquoted-context word at `pos`, or returns null if a metacharacter is there. */
  protected readWord(): Word | null {
    const start = this.pos;
    const w: WordBuilder = { value: '', literal: true, splits: false, subs: [] };
    while (!this.atEnd()) {
      const c = this.peek();
      if ((c === '<' || c === '>') && this.peek(1) === '(') {
        this.readProcessSubstitution(w);
        continue;
      }
      if (c === '(' && this.pos > start && EXTGLOB_PREFIXES.has(this.src[this.pos - 1]!)) {
        this.readExtglob(w);
        continue;
      }
      if (METACHARS.has(c)) break;
      if (c === '\\') {
        const n = this.peek(1);
        if (n === '\n') this.pos += 2;
        else {
          w.value += n === '' ? '\\' : n;
          this.pos += n === '' ? 1 : 2;
        }
      } else if (c === "'") {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) this.fail('unterminated single quote');
        w.value += this.src.slice(this.pos + 1, end);
        this.pos = end + 1;
      } else if (c === '"') {
        this.readDoubleQuoted(w);
      } else if (c === '$') {
        this.readDollar(w, false);
      } else if (c === '`') {
        this.readBacktick(w, false);
      } else {
        if (c === '*' || c === '?' || (c === '[' && this.closesInWord(']'))) this.markExpansion(w, true);
        else if (c === '{' && this.isBraceExpansion()) this.markExpansion(w, true);
        else if (c === '~' && (this.pos === start || this.src[this.pos - 1] === '=' || this.src[this.pos - 1] === ':')) this.markExpansion(w, false);
        w.value += c;
        this.pos++;
      }
    }
    if (this.pos === start) return null;
    return { text: this.src.slice(start, this.pos), ...w };
  }

  private markExpansion(w: WordBuilder, splits: boolean): void {
    w.literal = false;
    if (splits) w.splits = true;
  }

  /** True if `close` occurs before the end of the current unquoted word. */
  private closesInWord(close: string): boolean {
    const end = Math.min(this.src.length, this.pos + MAX_BRACKET_LOOKAHEAD);
    for (let i = this.pos + 1; i < end; i++) {
      const c = this.src[i]!;
      if (c === close) return true;
      if (METACHARS.has(c)) return false;
    }
    return end < this.src.length;
  }

  /** `{a,b}` or `{1..3}`: a brace with a comma or `..` before its `}` in the same word. */
  private isBraceExpansion(): boolean {
    const end = Math.min(this.src.length, this.pos + MAX_BRACKET_LOOKAHEAD);
    for (let i = this.pos + 1; i < end; i++) {
      const c = this.src[i]!;
      if (c === '}') {
        const body = this.src.slice(this.pos + 1, i);
        return body.includes(',') || body.includes('..');
      }
      if (METACHARS.has(c)) return false;
    }
    return end < this.src.length;
  }

  private readExtglob(w: WordBuilder): void {
    const start = this.pos;
    let level = 0;
    while (!this.atEnd()) {
      const c = this.src[this.pos++]!;
      if (c === '(') level++;
      else if (c === ')' && --level === 0) break;
    }
    if (level !== 0) this.fail('unterminated extglob group', start);
    w.value += this.src.slice(start, this.pos);
    this.markExpansion(w, true);
  }

  /** Reads `"…"` at `pos` into `w`. */
  protected readDoubleQuoted(w: WordBuilder): void {
    const start = this.pos;
    this.pos++;
    for (;;) {
      if (this.atEnd()) this.fail('unterminated double quote', start);
      const c = this.peek();
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === '\\') {
        const n = this.peek(1);
        if (n === '\n') this.pos += 2;
        else if (n === '$' || n === '`' || n === '"' || n === '\\') {
          w.value += n;
          this.pos += 2;
        } else {
          w.value += '\\';
          this.pos++;
        }
      } else if (c === '$') this.readDollar(w, true);
      else if (c === '`') this.readBacktick(w, true);
      else {
        w.value += c;
        this.pos++;
      }
    }
  }

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
        const inner: WordBuilder = { value: '', literal: false, splits: false, subs: [] };
        if (!this.readArithBody(inner)) this.fail('unbalanced $(( arithmetic', start);
        return this.addExpansion(w, start, inner.subs, quoted);
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
      return this.addExpansion(w, start, [], quoted);
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

  private addExpansion(w: WordBuilder, start: number, subs: Script[], quoted: boolean): void {
    w.value += this.src.slice(start, this.pos);
    w.subs.push(...subs);
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
    const inner: WordBuilder = { value: '', literal: false, splits: false, subs: [] };
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
    this.addExpansion(w, start, inner.subs, quoted);
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

  private readProcessSubstitution(w: WordBuilder): void {
    const start = this.pos;
    this.pos += 2;
    this.enter();
    const body = this.parseSubstitution();
    this.leave();
    this.addExpansion(w, start, [body], true);
  }

  /** Reads `$'…'`, decoding its escapes: `$'\x72m'` is the literal word `rm`. */
  private readAnsiC(w: WordBuilder): void {
    const start = this.pos;
    this.pos += 2;
    for (;;) {
      if (this.atEnd()) this.fail("unterminated $' string", start);
      const c = this.src[this.pos++]!;
      if (c === "'") return;
      if (c !== '\\') {
        w.value += c;
        continue;
      }
      w.value += this.readAnsiEscape();
    }
  }

  private readAnsiEscape(): string {
    const c = this.src[this.pos] ?? '';
    const numeric = (re: RegExp, radix: number): string => {
      const m = re.exec(this.src.slice(this.pos, this.pos + 10))!;
      this.pos += m[0].length;
      const digits = radix === 8 ? m[0] : m[0].slice(1);
      return digits === '' ? `\\${c}` : String.fromCodePoint(Math.min(parseInt(digits, radix), 0x10ffff));
    };
    if (c in ANSI_ESCAPES) {
      this.pos++;
      return ANSI_ESCAPES[c]!;
    }
    if (c === 'x') return numeric(/^x[0-9A-Fa-f]{0,2}/, 16);
    if (c === 'u') return numeric(/^u[0-9A-Fa-f]{0,4}/, 16);
    if (c === 'U') return numeric(/^U[0-9A-Fa-f]{0,8}/, 16);
    if (c >= '0' && c <= '7') return numeric(/^[0-7]{1,3}/, 8);
    if (c === 'c' && this.pos + 1 < this.src.length) {
      this.pos += 2;
      return String.fromCharCode(this.src.charCodeAt(this.pos - 1) & 0x1f);
    }
    this.pos++;
    return `\\${c}`;
  }

  /**
   * Reads a heredoc body starting at `pos` (the line after the operator) through its
   * delimiter line. Unquoted bodies are scanned for substitutions, which bash runs.
   */
  protected readHeredocBody(delimiter: string, stripTabs: boolean, quoted: boolean): Word {
    const bodyStart = this.pos;
    let bodyEnd = -1;
    let after = -1;
    for (let lineStart = this.pos; lineStart <= this.src.length; ) {
      const nl = this.src.indexOf('\n', lineStart);
      const lineEnd = nl === -1 ? this.src.length : nl;
      const line = this.src.slice(lineStart, lineEnd);
      if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) {
        bodyEnd = lineStart;
        after = nl === -1 ? this.src.length : nl + 1;
        break;
      }
      if (nl === -1) break;
      lineStart = nl + 1;
    }
    if (bodyEnd === -1) this.fail(`unterminated heredoc: no line reading ${JSON.stringify(delimiter)}`, bodyStart);
    const text = this.src.slice(bodyStart, bodyEnd);
    const w: WordBuilder = { value: '', literal: true, splits: false, subs: [] };
    if (quoted) w.value = text;
    else {
      while (this.pos < bodyEnd) {
        const c = this.peek();
        if (c === '\\' && '$`\\\n'.includes(this.peek(1)) && this.peek(1) !== '') {
          if (this.peek(1) !== '\n') w.value += this.peek(1);
          this.pos += 2;
        } else if (c === '$') this.readDollar(w, true);
        else if (c === '`') this.readBacktick(w, true);
        else {
          w.value += c;
          this.pos++;
        }
      }
      if (this.pos > bodyEnd) this.fail('a substitution runs past the end of its heredoc', bodyStart);
    }
    this.pos = after;
    return { text, value: w.value, literal: w.literal, splits: false, subs: w.subs };
  }
}
