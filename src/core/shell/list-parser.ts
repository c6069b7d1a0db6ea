// The list grammar of the shell parser: lists, and-or lists, pipelines, simple commands,
// redirections and the heredocs they open. Compound commands are parsed by the subclass in parser.ts.
import type { Assignment, ListItem, Node, Redirect, RedirectOp, Script, Word } from './ast.js';
import { ExpansionScanner } from './expansions.js';

/** Words that end a list when they stand in command position. */
export const LIST_TERMINATORS = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', 'esac', '}']);

/** Words recognised as reserved in command position (bash's list). */
const RESERVED = new Set([...LIST_TERMINATORS, 'if', 'while', 'until', 'for', 'select', 'case', 'function', 'coproc', '{', '!', '[[', 'in', ']]']);

/** Length of the longest reserved word (`function`); peeking further is wasted work. */
const LONGEST_RESERVED = 8;

/** A redirection operator with an optional descriptor number before it; longest operators first. */
const REDIRECT_RE = /(\d{1,9})?(&>>|&>|<<<|<<-|<<|<>|<&|<|>>|>\||>&|>)/y;

/** `NAME=`, `NAME+=` or `NAME[index]=` at the start of a word before the command name. */
const ASSIGNMENT_RE = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;

interface PendingHeredoc {
  redirect: Redirect;
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
}

/** Parses lists and simple commands; `parseCompound` supplies everything with a reserved word or parens. */
export abstract class ListParser extends ExpansionScanner {
  private pending: PendingHeredoc[] = [];

  /** Parses the compound command at `pos` (after blanks), or returns null for a simple command. */
  protected abstract parseCompound(): Node | null;

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

  protected describeHere(): string {
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
  protected skipLinebreaks(): void {
    for (;;) {
      this.skipBlanks();
      this.skipComment();
      if (this.peek() !== '\n') return;
      this.newline();
    }
  }

  /** The reserved word at `pos` (only meaningful in command position), or null. */
  protected peekReserved(): string | null {
    let end = this.pos;
    const limit = Math.min(this.src.length, this.pos + LONGEST_RESERVED + 1);
    while (end < limit && !' \t\n;&|<>()'.includes(this.src[end]!)) end++;
    const word = this.src.slice(this.pos, end);
    return RESERVED.has(word) ? word : null;
  }

  protected consumeReserved(word: string): void {
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

  protected parseList(): Script {
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

  protected parseCommand(): Node {
    this.enter();
    this.skipBlanks();
    const node = this.parseCompound() ?? this.parseSimple();
    this.leave();
    return node;
  }

  protected expectEmptyParens(): void {
    this.pos++;
    this.skipBlanks();
    if (this.peek() !== ')') this.fail(`expected ')' but found ${this.describeHere()}`);
    this.pos++;
  }

  protected parseFunctionBody(name: string): Node {
    this.skipLinebreaks();
    return { type: 'function', name, body: this.parseCommand() };
  }

  protected parseRedirects(): Redirect[] {
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
    if (w.text.length === cut && this.peek() === '(') return { name: m[1]!, value: this.readArray(), form: 'array' };
    const form = m[2] ? 'element' : m[0].endsWith('+=') ? 'append' : undefined;
    const value: Word = { text: w.text.slice(cut), value: w.value.slice(cut), literal: w.literal, splits: false, evaluates: w.evaluates, subs: w.subs };
    return form ? { name: m[1]!, value, form } : { name: m[1]!, value };
  }

  /** `NAME=(a b c)`: an array value, read as one word. */
  private readArray(): Word {
    const start = this.pos;
    this.pos++;
    const value: Word = { text: '', value: '', literal: true, splits: false, evaluates: false, subs: [] };
    for (;;) {
      this.skipLinebreaks();
      if (this.atEnd()) this.fail('unterminated array assignment', start);
      if (this.peek() === ')') {
        this.pos++;
        break;
      }
      const w = this.readWord() ?? this.fail(`unexpected ${this.describeHere()} in an array`);
      value.literal &&= w.literal;
      value.evaluates ||= w.evaluates;
      value.subs.push(...w.subs);
    }
    value.text = this.src.slice(start, this.pos);
    value.value = value.text;
    return value;
  }
}
