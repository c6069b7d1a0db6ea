// Parses a bash command string into a syntax tree (ast.ts), by recursive descent over the
// characters. Bad input yields a failure value naming the problem, never an exception.
import { fail, ok, type Result } from '../result.js';
import type { Assignment, CaseNode, ForNode, IfNode, ListItem, Node, Redirect, RedirectOp, Script, Word } from './ast.js';
import { MAX_NESTING_DEPTH, Scanner, ShellSyntaxError, type WordBuilder } from './lexer.js';

/**
 * Longest command parsed, in UTF-16 code units. Agents write whole files through heredocs, so
 * this is generous; anything longer is reported as unparseable and goes to a person.
 */
export const MAX_COMMAND_LENGTH = 262_144;

/** Words that end a list when they stand in command position. */
const LIST_TERMINATORS = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', 'esac', '}']);

/** Words recognised as reserved in command position (bash's list, minus `coproc`). */
const RESERVED = new Set([...LIST_TERMINATORS, 'if', 'while', 'until', 'for', 'select', 'case', 'function', '{', '!', '[[', 'in', ']]']);

/** Length of the longest reserved word (`function`); peeking further is wasted work. */
const LONGEST_RESERVED = 8;

/** A redirection operator with an optional descriptor number before it; longest operators first. */
const REDIRECT_RE = /(\d{1,9})?(&>>|&>|<<<|<<-|<<|<>|<&|<|>>|>\||>&|>)/y;

/** `NAME=`, `NAME+=` or `NAME[index]=` at the start of a word before the command name. */
const ASSIGNMENT_RE = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;

/**
 * Parses `src` as a bash command line.
 * @example parseShell('ls -la | grep x') // ok({type: 'script', items: [{node: {type: 'pipeline', …}}]})
 */
export function parseShell(src: string): Result<Script> {
  if (src.length > MAX_COMMAND_LENGTH) return fail(`the command is longer than ${MAX_COMMAND_LENGTH} characters`);
  try {
    return ok(new Parser(src, 0).parseAll());
  } catch (e) {
    if (e instanceof ShellSyntaxError) return fail(`${e.message} (at offset ${e.offset})`);
    // A stack overflow despite the depth bound is still a property of the input, not a bug.
    if (e instanceof RangeError) return fail(`nested too deeply to analyse (limit ${MAX_NESTING_DEPTH})`);
    throw e;
  }
}

interface PendingHeredoc {
  redirect: Redirect;
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
}

class Parser extends Scanner {
  private pending: PendingHeredoc[] = [];

  parseAll(): Script {
    const script = this.parseList();
    if (!this.atEnd()) this.fail(`unexpected ${this.describeHere()}`);
    const h = this.pending[0];
    if (h) this.fail(`unterminated heredoc: no line reading ${JSON.stringify(h.delimiter)}`);
    return script;
  }

  protected parseSubstitution(): Script {
    const start = this.pos;
    const script = this.parseList();
    if (this.peek() !== ')') this.fail(this.atEnd() ? 'unterminated $( or <( substitution' : `unexpected ${this.describeHere()}`, this.atEnd() ? start : this.pos);
    this.pos++;
    return script;
  }

  protected parseNested(text: string, offset: number): Script {
    try {
      return new Parser(text, this.depth + 1).parseAll();
    } catch (e) {
      if (e instanceof ShellSyntaxError) throw new ShellSyntaxError(e.message, offset + e.offset);
      throw e;
    }
  }

  private describeHere(): string {
    if (this.atEnd()) return 'end of input';
    return JSON.stringify(this.src.slice(this.pos, this.pos + 12).split('\n')[0] || '\n');
  }

  /** Consumes a newline, then reads the bodies of the heredocs opened on that line. */
  private newline(): void {
    this.pos++;
    const pending = this.pending;
    this.pending = [];
    for (const h of pending) h.redirect.body = this.readHeredocBody(h.delimiter, h.stripTabs, h.quoted);
  }

  /** Skips blanks, comments and newlines (a "linebreak" in the POSIX grammar). */
  private skipLinebreaks(): void {
    for (;;) {
      this.skipBlanks();
      this.skipComment();
      if (this.peek() !== '\n') return;
      this.newline();
    }
  }

  /** The reserved word at `pos` (only meaningful in command position), or null. */
  private peekReserved(): string | null {
    let end = this.pos;
    const limit = Math.min(this.src.length, this.pos + LONGEST_RESERVED + 1);
    while (end < limit && !' \t\n;&|<>()'.includes(this.src[end]!)) end++;
    const word = this.src.slice(this.pos, end);
    return RESERVED.has(word) ? word : null;
  }

  private consumeReserved(word: string): void {
    this.skipLinebreaks();
    if (this.peekReserved() !== word) this.fail(`expected '${word}' but found ${this.describeHere()}`);
    this.pos += word.length;
  }

  private atListEnd(): boolean {
    if (this.atEnd()) return true;
    const c = this.peek();
    if (c === ')') return true;
    if (c === ';' && (this.peek(1) === ';' || this.peek(1) === '&')) return true;
    const r = this.peekReserved();
    return r !== null && LIST_TERMINATORS.has(r);
  }

  private parseList(): Script {
    const items: ListItem[] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.atListEnd()) break;
      const node = this.parseAndOr();
      this.skipBlanks();
      this.skipComment();
      let background = false;
      const c = this.peek();
      if (c === '&') {
        this.pos++;
        background = true;
      } else if (c === ';' && this.peek(1) !== ';' && this.peek(1) !== '&') this.pos++;
      else if (c === '\n') this.newline();
      else if (!this.atListEnd()) this.fail(`unexpected ${this.describeHere()}`);
      items.push({ node, background });
    }
    return { type: 'script', items };
  }

  private parseAndOr(): Node {
    const parts = [this.parsePipeline()];
    const ops: ('&&' | '||')[] = [];
    for (;;) {
      this.skipBlanks();
      const two = this.src.slice(this.pos, this.pos + 2);
      if (two !== '&&' && two !== '||') break;
      this.pos += 2;
      ops.push(two);
      this.skipLinebreaks();
      parts.push(this.parsePipeline());
    }
    return ops.length === 0 ? parts[0]! : { type: 'and_or', parts, ops };
  }

  private parsePipeline(): Node {
    this.skipBlanks();
    let negated = false;
    if (this.peekReserved() === '!') {
      this.pos++;
      negated = true;
    }
    const commands = [this.parseCommand()];
    const ops: ('|' | '|&')[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.peek() !== '|' || this.peek(1) === '|') break;
      const op = this.peek(1) === '&' ? '|&' : '|';
      this.pos += op.length;
      ops.push(op);
      this.skipLinebreaks();
      commands.push(this.parseCommand());
    }
    return commands.length === 1 && !negated ? commands[0]! : { type: 'pipeline', negated, commands, ops };
  }

  private parseCommand(): Node {
    this.enter();
    this.skipBlanks();
    const node = this.parseCommandInner();
    this.leave();
    return node;
  }

  private parseCommandInner(): Node {
    if (this.peek() === '(') {
      if (this.peek(1) === '(' && this.looksArithmetic(this.pos + 2)) {
        const start = this.pos;
        this.pos += 2;
        const w: WordBuilder = { value: '', literal: false, splits: false, subs: [] };
        if (!this.readArithBody(w)) this.fail('unbalanced (( arithmetic', start);
        const expr: Word = { text: this.src.slice(start, this.pos), value: this.src.slice(start, this.pos), literal: false, splits: false, subs: w.subs };
        return { type: 'arith', expr, redirects: this.parseRedirects() };
      }
      this.pos++;
      const body = this.parseList();
      if (this.peek() !== ')') this.fail(`expected ')' but found ${this.describeHere()}`);
      this.pos++;
      return { type: 'subshell', body, redirects: this.parseRedirects() };
    }
    const r = this.peekReserved();
    if (r === '{') {
      this.pos++;
      const body = this.parseList();
      this.consumeReserved('}');
      return { type: 'group', body, redirects: this.parseRedirects() };
    }
    if (r === 'if') return this.parseIf();
    if (r === 'while' || r === 'until') {
      this.pos += r.length;
      const cond = this.parseList();
      this.consumeReserved('do');
      const body = this.parseList();
      this.consumeReserved('done');
      return { type: 'loop', keyword: r, cond, body, redirects: this.parseRedirects() };
    }
    if (r === 'for' || r === 'select') return this.parseFor(r);
    if (r === 'case') return this.parseCase();
    if (r === '[[') return this.parseCond();
    if (r === 'function') {
      this.pos += r.length;
      this.skipBlanks();
      const name = this.readWord() ?? this.fail('expected a function name');
      this.skipBlanks();
      if (this.peek() === '(') this.expectEmptyParens();
      return this.parseFunctionBody(name.value);
    }
    if (r !== null && r !== 'in' && r !== ']]') this.fail(`unexpected '${r}'`);
    return this.parseSimple();
  }

  private expectEmptyParens(): void {
    this.pos++;
    this.skipBlanks();
    if (this.peek() !== ')') this.fail(`expected ')' but found ${this.describeHere()}`);
    this.pos++;
  }

  private parseFunctionBody(name: string): Node {
    this.skipLinebreaks();
    return { type: 'function', name, body: this.parseCommand() };
  }

  private parseIf(): IfNode {
    this.pos += 2;
    const clauses: IfNode['clauses'] = [];
    let elseBody: Script | null = null;
    for (;;) {
      const cond = this.parseList();
      this.consumeReserved('then');
      clauses.push({ cond, body: this.parseList() });
      const r = this.peekReserved();
      if (r === 'elif') {
        this.pos += 4;
        continue;
      }
      if (r === 'else') {
        this.pos += 4;
        elseBody = this.parseList();
      }
      this.consumeReserved('fi');
      return { type: 'if', clauses, elseBody, redirects: this.parseRedirects() };
    }
  }

  private parseFor(keyword: 'for' | 'select'): ForNode {
    this.pos += keyword.length;
    this.skipBlanks();
    let variable = '';
    let items: Word[] | null = null;
    let header: Word | null = null;
    if (this.src.startsWith('((', this.pos)) {
      const start = this.pos;
      this.pos += 2;
      const w: WordBuilder = { value: '', literal: false, splits: false, subs: [] };
      if (!this.readArithBody(w)) this.fail('unterminated (( in for', start);
      header = { text: this.src.slice(start, this.pos), value: this.src.slice(start, this.pos), literal: false, splits: false, subs: w.subs };
    } else {
      variable = (this.readWord() ?? this.fail(`expected a variable name after '${keyword}'`)).value;
      this.skipLinebreaks();
      if (this.peekReserved() === 'in') {
        this.pos += 2;
        items = [];
        for (;;) {
          this.skipBlanks();
          this.skipComment();
          const w = this.readWord();
          if (!w) break;
          items.push(w);
        }
      }
    }
    this.skipBlanks();
    if (this.peek() === ';') this.pos++;
    this.consumeReserved('do');
    const body = this.parseList();
    this.consumeReserved('done');
    return { type: 'for', keyword, variable, items, header, body, redirects: this.parseRedirects() };
  }

  private parseCase(): CaseNode {
    this.pos += 4;
    this.skipBlanks();
    const subject = this.readWord() ?? this.fail("expected a word after 'case'");
    this.consumeReserved('in');
    const arms: CaseNode['arms'] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.peekReserved() === 'esac') {
        this.pos += 4;
        return { type: 'case', subject, arms, redirects: this.parseRedirects() };
      }
      if (this.atEnd()) this.fail("expected 'esac' but found end of input");
      if (this.peek() === '(') this.pos++;
      const patterns: Word[] = [];
      for (;;) {
        this.skipBlanks();
        patterns.push(this.readWord() ?? this.fail(`expected a case pattern but found ${this.describeHere()}`));
        this.skipBlanks();
        const c = this.peek();
        this.pos++;
        if (c === ')') break;
        if (c !== '|') this.fail(`expected ')' or '|' after a case pattern`, this.pos - 1);
      }
      arms.push({ patterns, body: this.parseList() });
      if (this.src.startsWith(';;&', this.pos)) this.pos += 3;
      else if (this.src.startsWith(';;', this.pos) || this.src.startsWith(';&', this.pos)) this.pos += 2;
      else if (this.peekReserved() !== 'esac') this.fail(`expected ';;' or 'esac' but found ${this.describeHere()}`);
    }
  }

  /** `[[ … ]]`: keeps the operand words (for their substitutions), drops the operators. */
  private parseCond(): Node {
    this.pos += 2;
    const words: Word[] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.atEnd()) this.fail("expected ']]' but found end of input");
      if (this.peekReserved() === ']]') {
        this.pos += 2;
        return { type: 'cond', words, redirects: this.parseRedirects() };
      }
      const w = this.readWord();
      if (w) words.push(w);
      else this.pos++; // an operator character: ( ) < > & | ;
    }
  }

  private parseRedirects(): Redirect[] {
    const redirects: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const r = this.tryRedirect();
      if (!r) return redirects;
      redirects.push(r);
    }
  }

  private tryRedirect(): Redirect | null {
    REDIRECT_RE.lastIndex = this.pos;
    const m = REDIRECT_RE.exec(this.src);
    if (!m) return null;
    const op = m[2] as RedirectOp;
    const end = this.pos + m[0].length;
    // `<(…)` and `>(…)` are process substitutions, a word; not a redirection.
    if ((op === '<' || op === '>') && this.src[end] === '(') return null;
    this.pos = end;
    this.skipBlanks();
    const target = this.readWord() ?? this.fail(`expected a word after '${op}' but found ${this.describeHere()}`);
    const redirect: Redirect = { fd: m[1] === undefined ? null : Number(m[1]), op, target, body: null };
    if (op === '<<' || op === '<<-') {
      const quoted = /['"\\]/.test(target.text);
      this.pending.push({ redirect, delimiter: quoted ? target.value : target.text, stripTabs: op === '<<-', quoted });
    }
    return redirect;
  }

  private parseSimple(): Node {
    const assignments: Assignment[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.atEnd()) break;
      const c = this.peek();
      const r = (c === '<' || c === '>') && this.peek(1) === '(' ? null : this.tryRedirect();
      if (r) {
        redirects.push(r);
        continue;
      }
      if (c === '(') {
        if (words.length === 1 && assignments.length === 0 && redirects.length === 0) {
          this.expectEmptyParens();
          return this.parseFunctionBody(words[0]!.value);
        }
        this.fail("unexpected '('");
      }
      if (c === '#') {
        this.skipComment();
        continue;
      }
      const w = this.readWord();
      if (!w) break;
      const m = words.length === 0 ? ASSIGNMENT_RE.exec(w.text) : null;
      if (m) assignments.push(this.assignment(m, w));
      else words.push(w);
    }
    if (words.length === 0 && assignments.length === 0 && redirects.length === 0) this.fail(`unexpected ${this.describeHere()}`);
    return { type: 'simple', assignments, words, redirects };
  }

  private assignment(m: RegExpExecArray, w: Word): Assignment {
    const cut = m[0].length;
    if (w.text.length === cut && this.peek() === '(') return { name: m[1]!, value: this.readArray() };
    return { name: m[1]!, value: { text: w.text.slice(cut), value: w.value.slice(cut), literal: w.literal, splits: false, subs: w.subs } };
  }

  /** `NAME=(a b c)`: an array value, read as one word. */
  private readArray(): Word {
    const start = this.pos;
    this.pos++;
    const value: Word = { text: '', value: '', literal: true, splits: false, subs: [] };
    for (;;) {
      this.skipLinebreaks();
      if (this.atEnd()) this.fail('unterminated array assignment', start);
      if (this.peek() === ')') {
        this.pos++;
        break;
      }
      const w = this.readWord() ?? this.fail(`unexpected ${this.describeHere()} in an array`);
      value.literal &&= w.literal;
      value.subs.push(...w.subs);
    }
    value.text = this.src.slice(start, this.pos);
    value.value = value.text;
    return value;
  }
}
