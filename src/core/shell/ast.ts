// The shell syntax tree that parser.ts builds and classify.ts walks. It keeps only what the
// analysis needs: words carry their text, their literal value and the scripts run to expand them.

/** One word of a command line, after parsing but before any expansion. */
export interface Word {
  /** As written, quotes included. */
  text: string;
  /** After quote removal; expansions stay as written (`"$HOME"/x` → `$HOME/x`). Exact only when `literal`. */
  value: string;
  /** No expansion of any kind: no parameter, substitution, arithmetic, glob, brace or tilde. */
  literal: boolean;
  /** Has an unquoted expansion, so at run time it may become several arguments (a flag, even). */
  splits: boolean;
  /**
   * The shell evaluates part of it as arithmetic, a prompt or a zsh glob qualifier (`$((X))`,
   * `${s:X}`, `${a[X]}`, `${P@P}`, `*(e:…:)`), where a value can itself contain `$(…)` that runs.
   */
  evaluates: boolean;
  /** Scripts that run while the word is expanded: `$(…)`, backticks, `<(…)`, `>(…)`, also inside `${…}`, `$((…))` and heredoc bodies. */
  subs: Script[];
}

/** `NAME=value` before a command (or alone). */
export interface Assignment {
  name: string;
  value: Word;
  /** `NAME+=value`, `NAME[i]=value` or `NAME=(…)`; absent for a plain `NAME=value`. */
  form?: 'append' | 'element' | 'array';
}

/** Every redirection operator the parser knows. */
export type RedirectOp = '<' | '>' | '>>' | '>|' | '<>' | '&>' | '&>>' | '>&' | '<&' | '<<' | '<<-' | '<<<';

/** One redirection. */
export interface Redirect {
  /** The file descriptor written before the operator (`2>`), or null. */
  fd: number | null;
  op: RedirectOp;
  /** The file, descriptor or here-string; for `<<` and `<<-`, the delimiter. */
  target: Word;
  /** For `<<` and `<<-`: the body (literal when the delimiter was quoted); null otherwise. */
  body: Word | null;
}

/** A sequence of commands separated by `;`, `&` or newlines. */
export interface Script {
  type: 'script';
  items: ListItem[];
}

/** One entry of a script; `background` when it ended with `&`. */
export interface ListItem {
  node: Node;
  background: boolean;
}

/** `a && b || c`: `ops[i]` joins `parts[i]` and `parts[i + 1]`. */
export interface AndOr {
  type: 'and_or';
  parts: Node[];
  ops: ('&&' | '||')[];
}

/** `a | b |& c`, or a single command negated with `!`. */
interface Pipeline {
  type: 'pipeline';
  negated: boolean;
  commands: Node[];
  ops: ('|' | '|&')[];
}

/** A simple command: assignments, words (the first is the command name) and redirections. */
export interface SimpleCommand {
  type: 'simple';
  assignments: Assignment[];
  words: Word[];
  redirects: Redirect[];
}

/** `( … )`: runs in a child shell, so `cd` inside does not leak out. */
interface Subshell {
  type: 'subshell';
  body: Script;
  redirects: Redirect[];
}

/** `{ …; }`: runs in the current shell. */
interface Group {
  type: 'group';
  body: Script;
  redirects: Redirect[];
}

/** `if … then … elif … else … fi`. */
export interface IfNode {
  type: 'if';
  clauses: { cond: Script; body: Script }[];
  elseBody: Script | null;
  redirects: Redirect[];
}

/** `while`/`until … do … done`. */
interface LoopNode {
  type: 'loop';
  keyword: 'while' | 'until';
  cond: Script;
  body: Script;
  redirects: Redirect[];
}

/** `for`/`select NAME [in WORDS]; do … done`, or the arithmetic `for ((…))` (header set, variable empty). */
export interface ForNode {
  type: 'for';
  keyword: 'for' | 'select';
  variable: string;
  items: Word[] | null;
  header: Word | null;
  body: Script;
  redirects: Redirect[];
}

/** `case WORD in PATTERN) … ;; esac`. */
export interface CaseNode {
  type: 'case';
  subject: Word;
  arms: { patterns: Word[]; body: Script }[];
  redirects: Redirect[];
}

/** `name() body` or `function name body`. */
export interface FunctionNode {
  type: 'function';
  name: string;
  body: Node;
}

/** `(( … ))`. */
interface ArithNode {
  type: 'arith';
  expr: Word;
  redirects: Redirect[];
}

/** `[[ … ]]`: operators are dropped, the operand words are kept. */
interface CondNode {
  type: 'cond';
  words: Word[];
  redirects: Redirect[];
}

/** Any command the parser produces. */
export type Node = AndOr | Pipeline | SimpleCommand | Subshell | Group | IfNode | LoopNode | ForNode | CaseNode | FunctionNode | ArithNode | CondNode;
