// Classifies a bash command for the pre-tool hook: deny, approve or ask, with a reason per
// simple command and every file it would write. An early warning; the scope check at the end is the net.
import type { FunctionNode, Node, Redirect, Script, SimpleCommand, Word } from './ast.js';
import { commandName, isSafeEnvName, parseArgs, unwrapCommand } from './command-line.js';
import { denyReason, gatehouseArgs } from './deny-rules.js';
import { evaluatesReason, evaluatingWord, judgeTargets, Judgement, type ShellClass, type TargetScope } from './judgement.js';
import { parseShellAt } from './parser.js';
import { normalizePath, resolvePath } from './paths.js';
import { readOnlyReason } from './read-only.js';
import { summarize, unreadSummary } from './summary.js';
import { parsedPrefix, scanUnread, type Unread } from './unread.js';
import { BASH_COMPATIBLE_SHELLS, codeSource, isDecoderOrDownloader, SHELLS } from './runners.js';
import { isForkBomb, someSimpleCommand, wordRuns } from './walk.js';
import type { WriteTarget } from './write-target.js';
import { commandTargets, redirectTargets } from './write-targets.js';

/** What the classifier needs to know about the session. */
export interface ShellContext {
  /** The directory the command runs in (absolute, `/`-separated). */
  cwd: string;
  /** Absolute paths of the gate's own files; writes and deletes there are denied. */
  protectedPaths: string[];
  /** Names of our CLI; default `['gatehouse']`. */
  gatehouseCommands?: string[];
}

/** The verdict on one simple command. */
export interface SimpleCommandInfo {
  /** Literal values; non-literal words shown as written. */
  argv: string[];
  literal: boolean;
  class: ShellClass;
  reason: string;
}

/** The verdict on a whole command line. */
export interface ShellAnalysis {
  /** deny if any command is denied, else ask if any asks, else approve. */
  class: ShellClass;
  reason: string;
  commands: SimpleCommandInfo[];
  writeTargets: WriteTarget[];
  /** False when the command line did not parse whole: only the lines before the error were analysed. */
  parsed: boolean;
  /** Present when some part (the line's rest, or a nested script) did not parse: what a lenient scan found there. */
  unread?: Unread;
}

export type { ShellClass } from './judgement.js';
export type { WriteTarget } from './write-target.js';
export type { Unread } from './unread.js';

/** Deepest re-analysis of a string as a script (`sh -c '…'`, `eval`, heredoc into `sh`); real commands nest one or two. */
export const MAX_REANALYSIS_DEPTH = 4;

/** The command our package installs (package.json `bin`). */
const DEFAULT_GATEHOUSE_COMMANDS = ['gatehouse'];

/**
 * Shell variables that change how later commands are found or run (if already exported, a bare
 * assignment changes the environment too); `RIPGREP_CONFIG_PATH` can give `rg` a `--pre` program.
 */
const DANGEROUS_VARIABLES =
  /^(PATH|IFS|ENV|BASH_ENV|CDPATH|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|GLOBIGNORE|HOME|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|RIPGREP_CONFIG_PATH|NODE_OPTIONS|PYTHONPATH|PYTHONSTARTUP|PERL5OPT|PERL5LIB|RUBYOPT|(LD|DYLD|GIT|BASH)_.*)$/;

/** What runs into a command's standard input, as far as the analysis needs to know. */
type Feed = 'pipe' | 'decoded' | null;

interface Scope {
  /** The directory commands run in, or null after a `cd` that could not be followed. */
  cwd: string | null;
}

/**
 * Classifies a bash command line.
 * @example analyzeShell('ls -la | grep x', {cwd: '/w', protectedPaths: []}).class // 'approve'
 */
export function analyzeShell(command: string, ctx: ShellContext): ShellAnalysis {
  const analyzer = new Analyzer(ctx);
  const parsed = parseShellAt(command);
  if (parsed.ok) {
    analyzer.script(parsed.value, { cwd: normalizePath(ctx.cwd) }, 0, null);
    return analyzer.result();
  }
  // Bash runs the complete lines before a syntax error: analyse those, and scan the rest leniently.
  const { script, end } = parsedPrefix(command, parsed.offset);
  analyzer.script(script, { cwd: normalizePath(ctx.cwd) }, 0, null);
  const prefix = analyzer.result();
  const rest = scanUnread(command.slice(end));
  const touchesPath = end === 0 ? rest.touchesPath : scanUnread(command).touchesPath;
  const couldWrite = rest.couldWrite || prefix.writeTargets.length > 0 || prefix.commands.some((c) => c.class !== 'approve') || prefix.unread?.couldWrite === true;
  return unreadSummary(prefix, parsed.reason, { couldWrite, touchesPath }, end > 0);
}

class Analyzer {
  readonly commands: SimpleCommandInfo[] = [];
  readonly targets: WriteTarget[] = [];
  private readonly protectedPaths: string[];
  private readonly names: string[];
  private readonly cwd: string;
  private unread: Unread | null = null;

  constructor(ctx: ShellContext) {
    this.protectedPaths = ctx.protectedPaths.map(normalizePath);
    this.names = ctx.gatehouseCommands ?? DEFAULT_GATEHOUSE_COMMANDS;
    this.cwd = normalizePath(ctx.cwd);
  }

  script(s: Script, scope: Scope, depth: number, feed: Feed): void {
    for (const item of s.items) this.node(item.node, item.background ? { ...scope } : scope, depth, feed);
  }

  private node(n: Node, scope: Scope, depth: number, feed: Feed): void {
    switch (n.type) {
      case 'and_or':
        return n.parts.forEach((p) => this.node(p, scope, depth, feed));
      case 'pipeline': {
        let decoded = false;
        return n.commands.forEach((c, i) => {
          this.node(c, n.commands.length > 1 ? { ...scope } : scope, depth, i === 0 ? feed : decoded ? 'decoded' : 'pipe');
          decoded ||= someSimpleCommand(c, isDecoderOrDownloader);
        });
      }
      case 'simple':
        return this.simple(n, scope, depth, feed);
      case 'subshell':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        return this.script(n.body, { ...scope }, depth, feed);
      case 'group':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        return this.script(n.body, scope, depth, feed);
      case 'if':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        for (const c of n.clauses) {
          this.script(c.cond, scope, depth, feed);
          this.script(c.body, scope, depth, feed);
        }
        if (n.elseBody) this.script(n.elseBody, scope, depth, feed);
        return;
      case 'loop':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        this.script(n.cond, scope, depth, feed);
        return this.script(n.body, scope, depth, feed);
      case 'for':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        this.subs([...(n.items ?? []), ...(n.header ? [n.header] : [])], scope, depth);
        this.evaluated(n.keyword, [...(n.items ?? []), ...(n.header ? [n.header] : [])]);
        return this.script(n.body, scope, depth, feed);
      case 'case':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        this.subs([n.subject, ...n.arms.flatMap((a) => a.patterns)], scope, depth);
        this.evaluated(n.type, [n.subject, ...n.arms.flatMap((a) => a.patterns)]);
        return n.arms.forEach((a) => this.script(a.body, scope, depth, feed));
      case 'function':
        return this.functionDef(n, scope, depth);
      case 'arith':
      case 'cond':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        this.evaluated(n.type === 'arith' ? '((' : '[[', n.type === 'arith' ? [n.expr] : n.words, n.type === 'cond');
        return this.subs(n.type === 'arith' ? [n.expr] : n.words, scope, depth);
    }
  }

  /** Analyses the substitutions inside `words`; each runs in a child shell. */
  private subs(words: readonly Word[], scope: Scope, depth: number): void {
    for (const w of words) for (const s of w.subs) this.script(s, { ...scope }, depth, null);
  }

  /** Asks if bash evaluates one of `words` (or, in `[[`, an arithmetic comparison's operand) as arithmetic. */
  private evaluated(type: string, words: readonly Word[], cond = false): void {
    const w = evaluatingWord(words, cond);
    if (w) this.commands.push({ argv: [type, ...words.map((x) => x.text)], literal: false, class: 'ask', reason: evaluatesReason(w.text) });
  }

  private redirectWords(redirects: readonly Redirect[]): Word[] {
    return redirects.flatMap((r) => (r.body ? [r.target, r.body] : [r.target]));
  }

  private functionDef(n: FunctionNode, scope: Scope, depth: number): void {
    if (isForkBomb(n.name, n.body)) {
      this.commands.push({ argv: [`${n.name}()`], literal: true, class: 'deny', reason: 'it defines a function that calls itself in a pipeline or in the background: a fork bomb' });
    }
    // The body is judged as if it ran: a definition is usually followed by a call.
    this.node(n.body, { ...scope }, depth, null);
  }

  private compoundRedirects(type: string, redirects: readonly Redirect[], scope: Scope, depth: number): void {
    if (redirects.length === 0) return;
    this.subs(this.redirectWords(redirects), scope, depth);
    const targets = redirectTargets(redirects);
    if (targets.length === 0) return;
    const j = new Judgement();
    this.targets.push(...judgeTargets(targets, this.targetScope(scope.cwd), j));
    this.commands.push({ argv: [type, ...redirects.map((r) => `${r.fd ?? ''}${r.op}${r.target.text}`)], literal: true, class: j.class, reason: j.reason });
  }

  private simple(cmd: SimpleCommand, scope: Scope, depth: number, feed: Feed): void {
    // Substitutions run first, in child shells, before the command itself.
    const allWords = [...cmd.assignments.map((a) => a.value), ...cmd.words, ...this.redirectWords(cmd.redirects)];
    this.subs(allWords, scope, depth);
    const j = new Judgement();
    const evaluating = evaluatingWord(allWords, false);
    if (evaluating) j.raise('ask', evaluatesReason(evaluating.text));
    const targets = redirectTargets(cmd.redirects);
    const argv = cmd.words.map((w) => (w.literal ? w.value : w.text));
    let cwd = scope.cwd;
    if (cmd.words.length === 0) {
      for (const a of cmd.assignments) if (DANGEROUS_VARIABLES.test(a.name)) j.raise('ask', `it sets ${a.name}, which changes how later commands are found or run`);
      if (cmd.assignments.length > 0 && j.class === 'approve') j.reason = 'it only sets shell variables';
    } else {
      for (const a of cmd.assignments) if (!isSafeEnvName(a.name)) j.raise('ask', `it sets ${a.name} for the command, which can change what it runs`);
      const u = unwrapCommand(cmd.words);
      if (u.cwdChanged) cwd = null;
      const name = commandName(u.words[0]);
      const deny = denyReason(u.words, cwd, this.names);
      if (deny) j.raise('deny', deny);
      if (name === null) j.raise('ask', `the command name ${u.words[0]!.text} is only known at run time`);
      else {
        targets.push(...commandTargets(u.words));
        const handled = this.codeRunner(u.words, name, cmd, scope, depth, feed, j);
        this.findExec(u.words, name, scope, depth);
        if (gatehouseArgs(u.words, this.names)) j.raise('ask', 'it runs the Gatehouse CLI, which supervises this session');
        for (const reason of u.asks) j.raise('ask', reason);
        if (!handled) {
          const notReadOnly = readOnlyReason(u.words);
          if (notReadOnly) j.raise('ask', notReadOnly);
        }
        this.followCd(u.words, name, scope);
      }
    }
    this.targets.push(...judgeTargets(targets, this.targetScope(cwd), j));
    const shown = [...cmd.assignments.map((a) => `${a.name}=${a.value.text}`), ...argv];
    this.commands.push({ argv: shown, literal: cmd.words.every((w) => w.literal), class: j.class, reason: j.reason });
  }

  /** Judges a shell, interpreter, `eval` or `source`; true if the command's class is fully decided here. */
  private codeRunner(words: Word[], name: string, cmd: SimpleCommand, scope: Scope, depth: number, feed: Feed, j: Judgement): boolean {
    const src = codeSource(words);
    if (!src || src.kind === 'none') return false;
    if (src.kind === 'inline') {
      const code = src.code[0];
      if (src.code.some((w) => wordRuns(w, isDecoderOrDownloader))) j.raise('deny', 'it runs code that is decoded or downloaded at run time, which no one can review');
      else if (name === 'eval' && src.code.every((w) => w.literal)) {
        this.reanalyse(src.code.map((w) => w.value).join(' '), scope, depth, j);
        j.raise('ask', '`eval` runs its arguments as a new command line');
      } else if (SHELLS.has(name) && code?.literal) {
        this.reanalyse(code.value, scope, depth, j);
        // Other shells' syntax differs from bash: what the parser saw is a hint, not the whole story.
        if (!BASH_COMPATIBLE_SHELLS.has(name)) j.raise('ask', `${name} syntax differs from bash, so Gatehouse cannot fully analyse its script`);
        j.reason = j.class === 'approve' ? 'its script is literal and is judged command by command' : j.reason;
        return true;
      } else j.raise('ask', `${name} runs ${code ? `code given inline (${code.text})` : 'inline code'}, which Gatehouse does not analyse`);
    } else if (src.kind === 'file') {
      if (wordRuns(src.file, isDecoderOrDownloader)) j.raise('deny', 'it runs a script that is decoded or downloaded at run time, which no one can review');
      else j.raise('ask', `${name} runs the script ${src.file.text}, which Gatehouse does not read`);
    } else if (feed === 'decoded') j.raise('deny', 'it runs text that an earlier command in the pipe decoded or downloaded, which no one can review');
    else if (feed === 'pipe') j.raise('ask', `${name} runs a script read from a pipe`);
    else {
      const input = [...cmd.redirects].reverse().find((r) => r.op === '<<' || r.op === '<<-' || r.op === '<<<' || r.op === '<');
      const body = input?.op === '<' ? null : (input?.body ?? input?.target);
      const shellCode = SHELLS.has(name) || name === 'source' || name === '.';
      if (body && wordRuns(body, isDecoderOrDownloader)) j.raise('deny', 'it runs a script that is decoded or downloaded at run time, which no one can review');
      else if (body?.literal && shellCode) this.reanalyse(body.value, scope, depth, j);
      j.raise('ask', input ? `${name} runs a script fed to its standard input` : `it starts an interactive ${name}`);
    }
    return true;
  }

  /** Parses `text` as a script of its own and analyses it in a child scope; a script that does not parse whole is judged like a command line that does not. */
  private reanalyse(text: string, scope: Scope, depth: number, j: Judgement): void {
    if (depth + 1 > MAX_REANALYSIS_DEPTH) {
      // Not analysed: read leniently, and refused if it could write.
      const u = scanUnread(text);
      this.unread = { couldWrite: u.couldWrite || this.unread?.couldWrite === true, touchesPath: u.touchesPath || this.unread?.touchesPath === true };
      const why = `it nests scripts more than ${MAX_REANALYSIS_DEPTH} levels deep`;
      return u.couldWrite ? j.raise('deny', `${why}, and the part past that could write files`) : j.raise('ask', why);
    }
    const parsed = parseShellAt(text);
    if (parsed.ok) return this.script(parsed.value, { ...scope }, depth + 1, null);
    const { script, end } = parsedPrefix(text, parsed.offset);
    const seen = this.commands.length;
    this.script(script, { ...scope }, depth + 1, null);
    const rest = scanUnread(text.slice(end));
    const couldWrite = rest.couldWrite || this.commands.slice(seen).some((c) => c.class !== 'approve');
    this.unread = { couldWrite: couldWrite || this.unread?.couldWrite === true, touchesPath: scanUnread(text).touchesPath || this.unread?.touchesPath === true };
    if (couldWrite) j.raise('deny', `its inner script does not parse (${parsed.reason}) and part of it could write files`);
    else j.raise('ask', `its inner script does not parse (${parsed.reason})`);
  }

  /** `find … -exec CMD ARGS ;`: the inner command is judged like any other (find itself then asks). */
  private findExec(words: Word[], name: string, scope: Scope, depth: number): void {
    if (name !== 'find') return;
    for (let i = 0; i < words.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i]!.value)) continue;
      const end = words.findIndex((w, k) => k > i && (w.value === ';' || w.value === '+'));
      const inner = words.slice(i + 1, end === -1 ? words.length : end);
      if (inner.length > 0) this.simple({ type: 'simple', assignments: [], words: inner, redirects: [] }, { ...scope }, depth, null);
      i = end === -1 ? words.length : end;
    }
  }

  /** `cd DIR` moves the scope; a directory that is not literal makes relative paths unknown. */
  private followCd(words: Word[], name: string, scope: Scope): void {
    if (name === 'popd') scope.cwd = null;
    if (name !== 'cd' && name !== 'pushd') return;
    const dir = parseArgs(words.slice(1), {}).positionals[0];
    scope.cwd = dir && dir.literal && dir.value !== '-' ? resolvePath(scope.cwd, dir.value) : null;
  }

  private targetScope(cwd: string | null): TargetScope {
    return { cwd, baseCwd: this.cwd, protectedPaths: this.protectedPaths };
  }

  result(): ShellAnalysis {
    const a = summarize(this.commands, this.targets);
    return this.unread ? { ...a, unread: this.unread } : a;
  }
}
