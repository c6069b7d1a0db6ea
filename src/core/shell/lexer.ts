// Character-level scanning for the shell parser: blanks, comments, words with their quotes,
// heredoc bodies. expansions.ts reads what starts with `$` or a backtick; parser.ts the grammar.
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
 * Longest word read, in characters, unless it holds a substitution. A single argument this long is
 * data that no person reviewing the command can read; file contents belong in a heredoc, whose
 * body this limit does not count (nor `"$(cat <<EOF …)"`, whose script is parsed).
 */
export const MAX_WORD_LENGTH = 65_536;

/**
 * How far ahead a `[` or `{` looks for its `]` or `}` to tell a glob or brace list from a plain
 * character. Past this the word is treated as an expansion; the bound keeps scanning linear.
 */
const MAX_BRACKET_LOOKAHEAD = 64;

/** Characters that end an unquoted word (bash's metacharacters). */
const METACHARS = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);

/** A `(` right after one of these starts an extglob group such as `@(a|b)` or `!(x)`. */
const EXTGLOB_PREFIXES = new Set(['?', '*', '+', '@', '!']);

/** The parts of a word collected while scanning it. */
export interface WordBuilder {
  value: string;
  literal: boolean;
  splits: boolean;
  evaluates: boolean;
  subs: Script[];
}

/** An empty builder; `literal` is where it starts (a word is literal until an expansion is seen). */
export function newBuilder(literal: boolean): WordBuilder {
  return { value: '', literal, splits: false, evaluates: false, subs: [] };
}

/** Scans characters of `src`; expansions and the grammar (and so `$(…)`) live in the subclasses. */
export abstract class Scanner {
  protected pos = 0;
  private bracketUntil = -1;
  private bracketCloses = false;
  private braceUntil = -1;
  private braceExpands = false;

  constructor(
    protected readonly src: string,
    protected depth: number,
  ) {}

  /** Reads whatever starts with `$` at `pos` into `w`. */
  protected abstract readDollar(w: WordBuilder, quoted: boolean): void;
  /** Reads a backtick substitution at `pos` into `w`. */
  protected abstract readBacktick(w: WordBuilder, quoted: boolean): void;
  /** Reads `<(…)` or `>(…)` at `pos` into `w`. */
  protected abstract readProcessSubstitution(w: WordBuilder): void;

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
    const w = newBuilder(true);
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
        if (c === '*' || c === '?' || (c === '[' && this.closesInWord())) this.markExpansion(w, true);
        else if (c === '{' && this.isBraceExpansion()) this.markExpansion(w, true);
        else if (c === '~' && (this.pos === start || this.src[this.pos - 1] === '=' || this.src[this.pos - 1] === ':')) this.markExpansion(w, false);
        w.value += c;
        this.pos++;
      }
    }
    if (this.pos === start) return null;
    if (this.pos - start > MAX_WORD_LENGTH && w.subs.length === 0) this.fail(`a word is longer than ${MAX_WORD_LENGTH} characters`, start);
    return { text: this.src.slice(start, this.pos), ...w };
  }

  protected markExpansion(w: WordBuilder, splits: boolean): void {
    w.literal = false;
    if (splits) w.splits = true;
  }

  /** True if `]` occurs before the end of the current unquoted word (within the look-ahead). */
  private closesInWord(): boolean {
    // A run of `[` shares one answer: the first scan's result holds until where it stopped.
    if (this.pos < this.bracketUntil) return this.bracketCloses;
    const end = Math.min(this.src.length, this.pos + MAX_BRACKET_LOOKAHEAD);
    let i = this.pos + 1;
    for (; i < end; i++) {
      const c = this.src[i]!;
      if (c === ']' || METACHARS.has(c)) break;
    }
    this.bracketUntil = i;
    this.bracketCloses = i === end ? end < this.src.length : this.src[i] === ']';
    return this.bracketCloses;
  }

  /** `{a,b}` or `{1..3}`: a brace with a comma or `..` before its `}` in the same word. */
  private isBraceExpansion(): boolean {
    // Without a `}` in reach, every `{` up to where the scan stopped gets the same answer.
    if (this.pos < this.braceUntil) return this.braceExpands;
    const end = Math.min(this.src.length, this.pos + MAX_BRACKET_LOOKAHEAD);
    for (let i = this.pos + 1; i < end; i++) {
      const c = this.src[i]!;
      if (c === '}') {
        const body = this.src.slice(this.pos + 1, i);
        return body.includes(',') || body.includes('..');
      }
      if (METACHARS.has(c)) {
        this.braceUntil = i;
        this.braceExpands = false;
        return false;
      }
    }
    this.braceUntil = end;
    this.braceExpands = end < this.src.length;
    return this.braceExpands;
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
    // In zsh the same syntax is a glob qualifier, and `*(e:'cmd':)` runs cmd.
    w.evaluates = true;
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

  /**
   * Reads a heredoc body starting at `pos` (the line after the operator) through its
   * delimiter line. Unquoted bodies are scanned for substitutions, which bash runs.
   */
  protected readHeredocBody(delimiter: string, stripTabs: boolean, quoted: boolean): Word {
    const bodyStart = this.pos;
    let bodyEnd = -1;
    let after = -1;
    for (let lineStart = this.pos; lineStart <= this.src.length;) {
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
    const w = newBuilder(true);
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
    return { text, value: w.value, literal: w.literal, splits: false, evaluates: w.evaluates, subs: w.subs };
  }
}
