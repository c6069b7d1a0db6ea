// What can still be said of the part of a command line that does not parse: a lenient scan that
// tells whether any of it could write or names a path (parsed-prefix.ts finds the part that parses).
import type { Word } from './ast.js';
import { commandName, unwrapCommand } from './command-line.js';
import { MAX_COMMAND_LENGTH } from './parser.js';
import { readOnlyReason } from './read-only.js';
import { codeSource } from './runners.js';
import { isStreamPath } from './write-target.js';
import { commandTargets } from './write-targets.js';

/** What the lenient scan found in text the parser could not read. */
export interface Unread {
  /** Some part could write: a redirection to a file, a command not known to only read, or a runner. */
  couldWrite: boolean;
  /** Some word looks like a path: contains `/`, starts with `~` or `.`, or has `$` or glob characters. */
  touchesPath: boolean;
}

/**
 * Longest text the lenient scan reads, in characters; past it the command is taken to write and
 * to touch paths. Four times the parser's limit, so that a command just over that limit is still read.
 */
export const MAX_UNREAD_SCAN = 4 * MAX_COMMAND_LENGTH;

/**
 * Reads text the parser rejected, leniently: unterminated quotes run to the end, unbalanced
 * parentheses are ignored, every command is judged by its name alone.
 * @example scanUnread('ls; echo "x > y').couldWrite // false
 */
export function scanUnread(text: string): Unread {
  if (text.length > MAX_UNREAD_SCAN) return { couldWrite: true, touchesPath: true };
  const s = new LenientScan(text);
  s.run();
  return { couldWrite: s.couldWrite, touchesPath: s.touchesPath };
}

/** A word as the lenient scan sees it: its text after quote removal, and whether anything in it expands. */
interface RawWord {
  value: string;
  expands: boolean;
  quoted: boolean;
}

/** The words of one command being read, and what the next word is for. */
interface CommandState {
  words: RawWord[];
  word: RawWord | null;
  redirect: '>' | '>&' | '<' | '<<' | null;
}

type FrameKind = 'cmd' | 'backtick' | 'dquote' | 'brace' | 'arith';

/** Reserved words that may stand before a command's name. */
const LEADING_RESERVED = new Set(['!', '{', '}', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', 'time', 'fi', 'done', 'esac']);

/** Reserved words that start something that is not a command run by name. */
const NOT_A_COMMAND = new Set(['for', 'select', 'case', 'function', '[[', ']]', '((', 'in']);

/** A redirection target that duplicates or closes a descriptor, not a file. */
const DESCRIPTOR = /^(\d+-?|-)$/;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

class LenientScan {
  couldWrite = false;
  touchesPath = false;
  private i = 0;
  private readonly frames: { kind: FrameKind; depth: number }[] = [{ kind: 'cmd', depth: 0 }];
  private readonly commands: CommandState[] = [{ words: [], word: null, redirect: null }];
  private heredocs: { delimiter: string; quoted: boolean }[] = [];

  constructor(private readonly src: string) {}

  run(): void {
    while (this.i < this.src.length) {
      const kind = this.frames[this.frames.length - 1]!.kind;
      if (kind === 'cmd' || kind === 'backtick') this.commandChar(kind);
      else if (kind === 'dquote') this.quotedChar();
      else this.nestedChar(kind);
    }
    if (this.commands.some((c) => (c.redirect === '>' || c.redirect === '>&') && c.word === null)) this.couldWrite = true;
    while (this.commands.length > 0) {
      this.endWord();
      this.flush();
      this.commands.pop();
    }
  }

  private get cmd(): CommandState {
    return this.commands[this.commands.length - 1]!;
  }

  private append(text: string, flags: Partial<RawWord> = {}): void {
    const w = (this.cmd.word ??= { value: '', expands: false, quoted: false });
    w.value += text;
    if (flags.expands) w.expands = true;
    if (flags.quoted) w.quoted = true;
  }

  private push(kind: FrameKind, depth = 0): void {
    this.frames.push({ kind, depth });
    if (kind === 'cmd' || kind === 'backtick') this.commands.push({ words: [], word: null, redirect: null });
  }

  private pop(): void {
    const f = this.frames.pop()!;
    if (f.kind === 'cmd' || f.kind === 'backtick') {
      this.endWord();
      this.flush();
      this.commands.pop();
    }
    if (this.frames.length === 0) this.push('cmd');
  }

  private commandChar(kind: FrameKind): void {
    const c = this.src[this.i]!;
    const n = this.src[this.i + 1] ?? '';
    if (kind === 'backtick' && c === '`') return this.step(1, () => this.pop());
    if (c === ' ' || c === '\t') return this.step(1, () => this.endWord());
    if (c === '\n') return this.step(1, () => this.newline());
    if (c === ')') return this.step(1, () => (kind === 'cmd' && this.frames.length > 1 ? this.pop() : this.endCommand()));
    if ((c === '<' || c === '>') && n === '(') return this.step(2, () => (this.append(c, { expands: true }), this.push('cmd')));
    if (c === '>' || c === '<' || (c === '&' && n === '>')) return this.redirection();
    if (c === ';' || c === '&' || c === '|') return this.step(n === c || (c === '|' && n === '&') ? 2 : 1, () => this.endCommand());
    if (c === '(') {
      if (this.cmd.word && /[?*+@!]$/.test(this.cmd.word.value)) return this.step(1, () => this.append(c, { expands: true }));
      return this.step(1, () => (this.endWord(), this.push('cmd')));
    }
    if (c === '#' && this.cmd.word === null) {
      const nl = this.src.indexOf('\n', this.i);
      this.i = nl === -1 ? this.src.length : nl;
      return;
    }
    if (c === '\\') return this.step(2, () => n !== '\n' && this.append(n, { quoted: true }));
    if (c === "'") {
      const end = this.src.indexOf("'", this.i + 1);
      const stop = end === -1 ? this.src.length : end;
      this.append(this.src.slice(this.i + 1, stop), { quoted: true });
      this.i = stop + 1;
      return;
    }
    if (c === '"') return this.step(1, () => (this.append('', { quoted: true }), this.push('dquote')));
    if (c === '$') return this.dollar(true);
    if (c === '`') return this.step(1, () => (this.append('`', { expands: true }), this.push('backtick')));
    this.append(c, { expands: c === '*' || c === '?' || c === '[' || c === '~' });
    this.i++;
  }

  private quotedChar(): void {
    const c = this.src[this.i]!;
    if (c === '"') return this.step(1, () => this.pop());
    if (c === '\\') return this.step(2, () => this.append(this.src[this.i + 1] ?? ''));
    if (c === '$') return this.dollar(false);
    if (c === '`') return this.step(1, () => (this.append('`', { expands: true }), this.push('backtick')));
    this.append(c);
    this.i++;
  }

  /** Inside `${…}` or `$((…))`: only nested substitutions and the closing bracket matter. */
  private nestedChar(kind: FrameKind): void {
    const f = this.frames[this.frames.length - 1]!;
    const c = this.src[this.i]!;
    const open = kind === 'brace' ? '{' : '(';
    const close = kind === 'brace' ? '}' : ')';
    if (c === open) f.depth++;
    else if (c === close && --f.depth <= 0) {
      this.i += kind === 'arith' && this.src[this.i + 1] === ')' ? 2 : 1;
      this.frames.pop();
      return;
    } else if (c === '$') return this.dollar(false);
    else if (c === '`') return this.step(1, () => this.push('backtick'));
    else if (c === '"') return this.step(1, () => this.push('dquote'));
    else if (c === '\\') this.i++;
    this.i++;
  }

  private dollar(unquoted: boolean): void {
    const rest = this.src.slice(this.i, this.i + 3);
    if (rest === '$((') return this.step(3, () => (this.append('$((', { expands: true }), this.push('arith', 1)));
    if (rest.startsWith('$(')) return this.step(2, () => (this.append('$(', { expands: true }), this.push('cmd')));
    if (rest.startsWith('${')) return this.step(2, () => (this.append('${', { expands: true }), this.push('brace', 1)));
    if (rest.startsWith('$"') && unquoted) return this.step(2, () => this.push('dquote'));
    if (rest.startsWith("$'") && unquoted) {
      let j = this.i + 2;
      while (j < this.src.length && this.src[j] !== "'") j += this.src[j] === '\\' ? 2 : 1;
      // Not decoded: a name spelled with escapes stays unknown, so it counts as a command that may write.
      this.append(this.src.slice(this.i, j + 1), { expands: true });
      this.i = j + 1;
      return;
    }
    const name = /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.src.slice(this.i, this.i + 256));
    this.append(name ? name[0] : '$', { expands: name !== null });
    this.i += name ? name[0].length : 1;
  }

  private redirection(): void {
    this.endWord();
    const op = /^(&>>|&>|>>|>\||>&|<>|<<<|<<-|<<|<&|>|<)/.exec(this.src.slice(this.i, this.i + 3))![0];
    this.i += op.length;
    if (op === '<<' || op === '<<-') this.cmd.redirect = '<<';
    else if (op === '<' || op === '<<<' || op === '<&') this.cmd.redirect = '<';
    else this.cmd.redirect = op === '>&' ? '>&' : '>';
  }

  private step(n: number, then: () => unknown): void {
    this.i += n;
    then();
  }

  private endWord(): void {
    const w = this.cmd.word;
    if (w === null) return;
    this.cmd.word = null;
    const v = w.value;
    const redirect = this.cmd.redirect;
    // `/dev/null` and the like are streams, not files a command reaches.
    const stream = !w.expands && isStreamPath(v);
    if (!stream && (v.includes('/') || v.startsWith('~') || v.startsWith('.') || w.expands)) this.touchesPath = true;
    this.cmd.redirect = null;
    if (redirect === '<<') this.heredocs.push({ delimiter: v, quoted: w.quoted });
    else if (redirect === '>&') this.couldWrite ||= w.expands || !DESCRIPTOR.test(v);
    else if (redirect === '>') this.couldWrite ||= w.expands || !isStreamPath(v);
    else if (redirect === null) this.cmd.words.push(w);
  }

  private endCommand(): void {
    this.endWord();
    this.flush();
  }

  private newline(): void {
    this.endCommand();
    for (const h of this.heredocs) this.skipHeredoc(h.delimiter, h.quoted);
    this.heredocs = [];
  }

  /** Skips a heredoc body; an unquoted one that substitutes a command could run anything. */
  private skipHeredoc(delimiter: string, quoted: boolean): void {
    const start = this.i;
    let end = this.src.length;
    for (let at = start; at < this.src.length;) {
      const nl = this.src.indexOf('\n', at);
      const lineEnd = nl === -1 ? this.src.length : nl;
      if (this.src.slice(at, lineEnd).replace(/^\t+/, '') === delimiter) {
        end = lineEnd;
        break;
      }
      at = lineEnd + 1;
    }
    const body = this.src.slice(start, end);
    if (!quoted && /\$\(|`/.test(body)) this.couldWrite = true;
    if (!quoted && /\$/.test(body)) this.touchesPath = true;
    this.i = end;
  }

  /** Judges the command read so far and starts the next one. */
  private flush(): void {
    const raw = this.cmd.words;
    this.cmd.words = [];
    let k = 0;
    while (k < raw.length && (LEADING_RESERVED.has(raw[k]!.value) || ASSIGNMENT.test(raw[k]!.value)) && !raw[k]!.quoted) k++;
    const words = raw.slice(k);
    if (words.length === 0 || (!words[0]!.quoted && NOT_A_COMMAND.has(words[0]!.value))) return;
    if (commandCouldWrite(words.map(asWord))) this.couldWrite = true;
  }
}

function asWord(w: RawWord): Word {
  return { text: w.value, value: w.value, literal: !w.expands, splits: w.expands, evaluates: false, subs: [] };
}

/** True unless the command is known to only read: named literally, on the read-only list, no runner, no file it writes. */
function commandCouldWrite(words: Word[]): boolean {
  const u = unwrapCommand(words);
  if (commandName(u.words[0]) === null) return true;
  const src = codeSource(u.words);
  if (src !== null && src.kind !== 'none') return true;
  return readOnlyReason(u.words).problem !== null || commandTargets(u.words).length > 0;
}
