// Parses a bash command string into a syntax tree (ast.ts) by recursive descent over the characters;
// this file holds the entry point and the compound commands. Bad input yields a failure value.
import { fail, type Result } from '../result.js';
import type { CaseNode, ForNode, IfNode, Node, Script, Word } from './ast.js';
import { usesVariables } from './expansions.js';
import { MAX_NESTING_DEPTH, newBuilder, ShellSyntaxError } from './lexer.js';
import { LIST_TERMINATORS, ListParser } from './list-parser.js';

/**
 * Longest command parsed, in UTF-16 code units. Agents write whole files through heredocs, so
 * this is generous; anything longer is reported as unparseable and goes to a person.
 */
export const MAX_COMMAND_LENGTH = 262_144;

/** Why a command line did not parse, and where: bash runs the lines before `offset` before it meets the error. */
export interface ShellParseError {
  ok: false;
  reason: string;
  /** Offset in the input where the error was found (for a command over the length limit, the limit). */
  offset: number;
}

/**
 * Parses `src` as a bash command line.
 * @example parseShell('ls -la | grep x') // ok({type: 'script', items: [{node: {type: 'pipeline', …}}]})
 */
export function parseShell(src: string): Result<Script> {
  const r = parseShellAt(src);
  return r.ok ? r : fail(r.reason);
}

/** Like parseShell, with the offset of the error on failure. */
export function parseShellAt(src: string): { ok: true; value: Script } | ShellParseError {
  if (src.length > MAX_COMMAND_LENGTH) return { ok: false, reason: `the command is longer than ${MAX_COMMAND_LENGTH} characters`, offset: MAX_COMMAND_LENGTH };
  try {
    return { ok: true, value: new Parser(src, 0).parseAll() };
  } catch (e) {
    if (e instanceof ShellSyntaxError) return { ok: false, reason: `${e.message} (at offset ${e.offset})`, offset: e.offset };
    // A stack overflow despite the depth bound is still a property of the input, not a bug; where it happened is unknown.
    if (e instanceof RangeError) return { ok: false, reason: `nested too deeply to analyse (limit ${MAX_NESTING_DEPTH})`, offset: 0 };
    throw e;
  }
}

class Parser extends ListParser {
  /** The word for `((…))` from `start` to `pos`. */
  private arithWord(start: number, evaluates: boolean, subs: Script[]): Word {
    const text = this.src.slice(start, this.pos);
    return { text, value: text, literal: false, splits: false, evaluates: evaluates || usesVariables(text.slice(2, -2)), subs };
  }

  protected parseCompound(): Node | null {
    if (this.peek() === '(') {
      if (this.peek(1) === '(' && this.looksArithmetic(this.pos + 2)) {
        const start = this.pos;
        this.pos += 2;
        const w = newBuilder(false);
        if (!this.readArithBody(w)) this.fail('unbalanced (( arithmetic', start);
        const expr = this.arithWord(start, w.evaluates, w.subs);
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
    if (r === 'coproc') return this.parseCoproc();
    if (r !== null && LIST_TERMINATORS.has(r)) this.fail(`unexpected '${r}'`);
    return null;
  }

  /**
   * `coproc [NAME] COMPOUND` or `coproc SIMPLE-COMMAND`: the command runs asynchronously in a child
   * shell, so it is kept as a subshell whose body runs in the background. A NAME is taken only
   * before a compound command, as bash does.
   */
  private parseCoproc(): Node {
    this.pos += 'coproc'.length;
    this.skipBlanks();
    const start = this.pos;
    const name = this.peek() === '(' || this.peekReserved() !== null ? null : this.readWord();
    this.skipBlanks();
    if (name && !(this.peek() === '(' || this.peekReserved() !== null)) this.pos = start;
    const body = this.parseCommand();
    return { type: 'subshell', body: { type: 'script', items: [{ node: body, background: true }] }, redirects: [] };
  }

  protected parseNested(text: string, offset: number): Script {
    try {
      return new Parser(text, this.depth + 1).parseAll();
    } catch (e) {
      if (e instanceof ShellSyntaxError) throw new ShellSyntaxError(e.message, offset + e.offset);
      throw e;
    }
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
      const w = newBuilder(false);
      if (!this.readArithBody(w)) this.fail('unterminated (( in for', start);
      header = this.arithWord(start, w.evaluates, w.subs);
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
}
