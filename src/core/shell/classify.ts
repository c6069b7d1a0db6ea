// Classifies a bash command for the pre-tool hook: deny, approve or ask, with a reason per
// simple command and every file it would write. An early warning; the scope check at the end is the net.
import type { SimpleCommand, Word } from './ast.js';
import { commandName, isSafeEnvName, parseArgs, unwrapCommand } from './command-line.js';
import { denyReason, gatehouseArgs } from './deny-rules.js';
import { fieldText } from './expand.js';
import { FlowAnalyzer, type Feed, type SimpleCommandInfo } from './flow.js';
import { judgeLinkSources, judgeTargets } from './judge-targets.js';
import { evaluatesReason, evaluatingWord, Judgement, type ShellClass } from './judgement.js';
import { linkSources } from './links.js';
import { parseShellAt } from './parser.js';
import { normalizePath, resolvePath } from './paths.js';
import { readOnlyReason, takesAnyArguments } from './read-only.js';
import { BASH_COMPATIBLE_SHELLS, codeSource, isDecoderOrDownloader, SHELLS } from './runners.js';
import { CD_BUILTINS, cloneScope, envOf, havoc, newScope, type Scope } from './scope.js';
import { assignedValue, substituteTarget, substituteWords, valueWord } from './substitute.js';
import { summarize, unreadSummary } from './summary.js';
import { parsedPrefix } from './parsed-prefix.js';
import { scanUnread, type Unread } from './unread.js';
import { wordRuns } from './walk.js';
import type { WriteTarget } from './write-target.js';
import { commandTargets, redirectTargets } from './write-targets.js';
import { credentialRead } from './credential-files.js';
import { gitControlTargets } from './git-config-targets.js';

/** What the classifier needs to know about the session. */
export interface ShellContext {
  /** The directory the command runs in (absolute, `/`-separated). */
  cwd: string;
  /** Absolute paths of the gate's own files; writes and deletes there are denied (none when absent). */
  protectedPaths?: string[];
  /** Names of our CLI; default `['gatehouse']`. */
  gatehouseCommands?: string[];
  /** $HOME of the session: `~`, `~/`, `$HOME` and `${HOME}` expand to it. Unknown (absent or null): they can be anything. */
  home?: string | null;
  /** The folder writes must stay in (the worktree, when the session has an allowlist): a target that can expand outside it is refused. */
  confine?: string | null;
  /** Protected paths a write may still touch because they already differ from the baseline (the way back). */
  restorable?: (abs: string) => boolean;
}

/** The verdict on a whole command line. */
export interface ShellAnalysis {
  /** deny if any command is denied, else ask if any asks, else approve. */
  class: ShellClass;
  reason: string;
  /** The rule that decided the worst command (`deny-list`, `write-target`, `knowledge-base`, `read-only:ls`, `unparsed`, …). */
  rule: string;
  /** The knowledge-base entry that decided it (`kubectl get`), when one did. */
  kb?: string;
  commands: SimpleCommandInfo[];
  writeTargets: WriteTarget[];
  /** False when the command line did not parse whole: only the lines before the error were analysed. */
  parsed: boolean;
  /** Present when some part (the line's rest, or a nested script) did not parse: what a lenient scan found there. */
  unread?: Unread;
}

export type { ShellClass } from './judgement.js';

/** Deepest re-analysis of a string as a script (`sh -c '…'`, `eval`, heredoc into `sh`); real commands nest one or two. */
const MAX_REANALYSIS_DEPTH = 4;

/** The command our package installs (package.json `bin`). */
const DEFAULT_GATEHOUSE_COMMANDS = ['gatehouse'];

/**
 * Shell variables that change how later commands are found or run (if already exported, a bare
 * assignment changes the environment too); `RIPGREP_CONFIG_PATH` can give `rg` a `--pre` program.
 */
const DANGEROUS_VARIABLES =
  /^(PATH|IFS|ENV|BASH_ENV|CDPATH|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|GLOBIGNORE|HOME|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|RIPGREP_CONFIG_PATH|NODE_OPTIONS|PYTHONPATH|PYTHONSTARTUP|PERL5OPT|PERL5LIB|RUBYOPT|(LD|DYLD|GIT|BASH)_.*)$/;

/**
 * Variables that point a program at other configuration, credentials, endpoints or helper
 * programs (`XDG_CONFIG_HOME` gives git a config with `core.pager`, `KUBECONFIG` an `exec` plugin,
 * `AWS_ENDPOINT_URL` another host): asked when given to a command, though a plain `FOO=bar` is not.
 */
const CONFIG_VARIABLES =
  /^(XDG_|AWS_|AZURE_|CLOUDSDK_|GOOGLE_|GCLOUD_|KUBE|DOCKER_|GH_|GITHUB_|NPM_|YARN_|PNPM_|PIP_|UV_|CARGO|RUST|TF_|HELM_|FZF_|LESS|SYSTEMD_|SSH_|GPG|GNUPG|PYTHON|NODE_|JAVA|_JAVA|JDK_|PERL|RUBY|GEM_|BUNDLE|GO|MAKE|CC$|CXX$|GCONV|LOC|NLS|ZDOTDIR|TERMINFO|BAT_|DELTA_|MYSQL|PG|REDIS|VAULT_|SUDO_)|(CONFIG|PATH|HOME|DIR|FILE|OPTS|OPTIONS|FLAGS|PAGER|EDITOR|ASKPASS|SHELL|PROGRAM|COMMAND|CMD|HOOK|PLUGIN|PRELOAD|LIB|ENDPOINT|URL|HOST|SERVER|PROXY|WRAPPER|EXEC|BROWSER|TOOL)/i;

/** True if a variable given to one command may change what it reads or runs (see CONFIG_VARIABLES). */
function isConfigVariable(name: string): boolean {
  return CONFIG_VARIABLES.test(name) || name.toLowerCase().startsWith('npm_config_');
}

/** A folder only known at run time. */
const UNKNOWN_FOLDER: Word = { text: '"$(unknown)"', value: '$(unknown)', literal: false, splits: false, evaluates: false, subs: [] };

/** Builtins that assign `NAME=value` arguments like a bare assignment does. */
const DECLARING_BUILTINS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/** Builtins that set the variables their arguments name to values read at run time. */
const READING_BUILTINS = new Set(['read', 'mapfile', 'readarray', 'unset', 'getopts', 'let', 'printf']);

/**
 * Classifies a bash command line.
 * @example analyzeShell('ls -la | grep x', {cwd: '/w', protectedPaths: []}).class // 'approve'
 */
export function analyzeShell(command: string, ctx: ShellContext): ShellAnalysis {
  const analyzer = new Analyzer(ctx);
  const scope = newScope(normalizePath(ctx.cwd), ctx.home ? normalizePath(ctx.home) : null);
  const parsed = parseShellAt(command);
  if (parsed.ok) {
    analyzer.script(parsed.value, scope, 0, null);
    return analyzer.result();
  }
  // Bash runs the complete lines before a syntax error: analyse those, and scan the rest leniently.
  const { script, end } = parsedPrefix(command, parsed.offset);
  analyzer.script(script, scope, 0, null);
  const prefix = analyzer.result();
  const rest = scanUnread(command.slice(end));
  const touchesPath = end === 0 ? rest.touchesPath : scanUnread(command).touchesPath;
  const couldWrite = rest.couldWrite || prefix.writeTargets.length > 0 || prefix.commands.some((c) => c.class !== 'approve') || prefix.unread?.couldWrite === true;
  return unreadSummary(prefix, parsed.reason, { couldWrite, touchesPath }, end > 0);
}

class Analyzer extends FlowAnalyzer {
  private readonly names: string[];
  private readonly home: string | null;
  private unread: Unread | null = null;

  constructor(ctx: ShellContext) {
    const confine = ctx.confine ? normalizePath(ctx.confine) : null;
    super({ baseCwd: normalizePath(ctx.cwd), protectedPaths: (ctx.protectedPaths ?? []).map(normalizePath), confine, restorable: ctx.restorable ?? null });
    this.names = ctx.gatehouseCommands ?? DEFAULT_GATEHOUSE_COMMANDS;
    this.home = ctx.home ? normalizePath(ctx.home) : null;
  }

  protected simple(cmd: SimpleCommand, scope: Scope, depth: number, feed: Feed): Scope | null {
    // Substitutions run first, in child shells, before the command itself.
    const allWords = [...cmd.assignments.map((a) => a.value), ...cmd.words, ...this.redirectWords(cmd.redirects)];
    this.subs(allWords, scope, depth);
    const j = new Judgement();
    const evaluating = evaluatingWord(allWords, false);
    if (evaluating) j.raise('ask', evaluatesReason(evaluating.text), undefined, 'evaluates');
    const env = envOf(scope);
    const words = substituteWords(cmd.words, env);
    const targets = redirectTargets(cmd.redirects.map((r) => ({ ...r, target: substituteTarget(r.target, env) })));
    let cwds = scope.cwds;
    // Targets are expanded before the command runs (an `eval` below may change variables).
    const before = cloneScope(scope);
    let effect: (() => Scope | null) | null = null;
    if (words.length === 0) {
      for (const a of cmd.assignments) if (DANGEROUS_VARIABLES.test(a.name)) j.raise('ask', `it sets ${a.name}, which changes how later commands are found or run`, undefined, 'environment');
      if (cmd.assignments.length > 0 && j.class === 'approve') j.reason = 'it only sets shell variables';
      j.approvedBy('assignment');
      effect = () => {
        // Left to right: `A=1 B=$A` gives B the new A.
        for (const a of cmd.assignments) scope.vars.set(a.name, assignedValue(a, envOf(scope)));
        return null;
      };
    } else {
      for (const a of cmd.assignments) {
        if (!isSafeEnvName(a.name) && (DANGEROUS_VARIABLES.test(a.name) || isConfigVariable(a.name)))
          j.raise('ask', `it sets ${a.name} for the command, which can change what it runs`, undefined, 'environment');
      }
      const u = unwrapCommand(words);
      if (u.cwdChanged) cwds = null;
      const name = commandName(u.words[0]);
      for (const cwd of cwds ?? [null]) {
        const deny = denyReason(u.words, cwd, this.names, this.home);
        if (deny) j.raise('deny', deny, undefined, 'deny-list');
      }
      if (name === null) {
        j.raise('ask', `the command name ${u.words[0]!.text} is only known at run time`, undefined, 'command-name');
        effect = () => (havoc(scope, { names: new Set(), cd: false, all: true }), null);
      } else {
        // GIT_DIR given to the command moves its repository anywhere.
        const gitDirSet = [...cmd.assignments.map((a) => a.name), ...u.envNames].some((n) => n === 'GIT_DIR' || n === 'GIT_COMMON_DIR');
        targets.push(...commandTargets(u.words), ...gitControlTargets(u.words).map((t) => (gitDirSet && t.repoFile ? { ...t, dir: UNKNOWN_FOLDER } : t)));
        j.under('write-target', () => judgeLinkSources(linkSources(u.words), this.targetScope(before, cwds), j));
        const handled = j.under('code-runner', () => this.codeRunner(u.words, name, cmd, scope, depth, feed, j));
        this.findExec(u.words, name, scope, depth);
        if (gatehouseArgs(u.words, this.names)) j.raise('ask', 'it runs the Gatehouse CLI, which supervises this session', undefined, 'gatehouse');
        for (const reason of u.asks) j.raise('ask', reason, undefined, 'wrapper');
        if (u.wrappers.includes('xargs') && !takesAnyArguments(name)) {
          j.raise('ask', `\`xargs\` appends arguments read from its input, which Gatehouse cannot see, and \`${name}\` has flags they could turn on`, undefined, 'wrapper');
        }
        if (!handled) {
          const ro = readOnlyReason(u.words, cwds);
          if (ro.problem) j.raise('ask', ro.problem, undefined, ro.rule, ro.kb);
          else j.approvedBy(ro.rule, ro.kb);
        } else j.approvedBy('code-runner');
        // `cat < ~/.aws/credentials` reads the file as surely as `cat ~/.aws/credentials`.
        const fromFile = credentialRead(
          cmd.redirects.filter((r) => r.op === '<' || r.op === '<>').map((r) => r.target),
          cwds,
        );
        if (fromFile !== null) j.raise('ask', fromFile, undefined, 'credential-file');
        effect = () => this.stateEffect(u.words, name, cmd, scope);
      }
    }
    this.targets.push(...j.under('write-target', () => judgeTargets(targets, this.targetScope(before, cwds), j)));
    this.record(
      [...cmd.assignments.map((a) => `${a.name}=${a.value.text}`), ...words.map((w) => (w.literal ? w.value : w.text))],
      words.every((w) => w.literal),
      j,
    );
    return effect();
  }

  /** What the command changes in the shell's state: directory, variables; returns the state it leaves when it fails. */
  private stateEffect(words: Word[], name: string, cmd: SimpleCommand, scope: Scope): Scope | null {
    const args = words.slice(1);
    if (CD_BUILTINS.has(name)) return this.followCd(args, name, cmd.assignments.length > 0, scope);
    if (name === 'source' || name === '.' || (name === 'eval' && !args.every((w) => w.literal))) havoc(scope, { names: new Set(), cd: false, all: true });
    const f = this.functions.get(name);
    if (f) havoc(scope, f);
    const named = (w: Word): string => w.value.split('=')[0]!;
    if (DECLARING_BUILTINS.has(name)) {
      const options = args.some((w) => w.value.startsWith('-') || w.value.startsWith('+'));
      for (const w of args) {
        const value = valueWord(w);
        if (value === null) continue;
        const v = options ? null : assignedValue({ name: named(w), value }, envOf(scope));
        scope.vars.set(named(w), v);
      }
    } else if (READING_BUILTINS.has(name)) {
      for (const w of args) for (const id of w.value.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) scope.vars.set(id, null);
    }
    return null;
  }

  /**
   * `cd DIR` moves the scope; it may fail (a folder that does not exist), so it returns the state
   * where it failed, unless it climbs to a parent, which always exists. An unknown folder makes relative paths unknown.
   */
  private followCd(args: Word[], name: string, prefixed: boolean, scope: Scope): Scope | null {
    const before = cloneScope(scope);
    scope.vars.delete('PWD');
    const dir = parseArgs(args, {}).positionals[0];
    let to: string | null = null;
    if (name === 'popd' || prefixed || (name === 'pushd' && !dir)) to = null;
    else if (!dir) to = this.concrete(scope, 'HOME');
    else if (dir.literal) to = dir.value === '-' ? null : dir.value;
    // CDPATH can send a relative `cd` anywhere.
    if (to !== null && !to.startsWith('/') && !/^\.\.?(\/|$)/.test(to) && before.vars.has('CDPATH')) to = null;
    if (to === null || (before.cwds === null && !to.startsWith('/'))) {
      scope.cwds = null;
      return before;
    }
    const target = to;
    scope.cwds = [...new Set((before.cwds ?? ['/']).map((c) => resolvePath(c, target)!))];
    return /^(\.\.\/?)+$|^\/$/.test(to) ? null : before;
  }

  /** The one known value of a variable, or null. */
  private concrete(scope: Scope, name: string): string | null {
    const v = envOf(scope).lookup(name);
    return v && v.length === 1 ? fieldText(v[0]!) : null;
  }

  /** Judges a shell, interpreter, `eval` or `source`; true if the command's class is fully decided here. */
  private codeRunner(words: Word[], name: string, cmd: SimpleCommand, scope: Scope, depth: number, feed: Feed, j: Judgement): boolean {
    const src = codeSource(words);
    if (!src || src.kind === 'none') return false;
    if (src.kind === 'inline') {
      const code = src.code[0];
      if (src.code.some((w) => wordRuns(w, isDecoderOrDownloader))) j.raise('deny', 'it runs code that is decoded or downloaded at run time, which no one can review');
      else if (name === 'eval' && src.code.every((w) => w.literal)) {
        // eval runs in this shell: what it changes holds for the commands after it.
        this.reanalyse(src.code.map((w) => w.value).join(' '), scope, depth, j);
        j.raise('ask', '`eval` runs its arguments as a new command line');
      } else if (SHELLS.has(name) && code?.literal) {
        this.reanalyse(code.value, this.childScope(scope), depth, j);
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
      else if (body?.literal && shellCode) this.reanalyse(body.value, SHELLS.has(name) ? this.childScope(scope) : scope, depth, j);
      j.raise('ask', input ? `${name} runs a script fed to its standard input` : `it starts an interactive ${name}`);
    }
    return true;
  }

  /** A child shell's state: the same directory; of the variables only HOME, which is always exported. */
  private childScope(scope: Scope): Scope {
    const child = cloneScope(scope);
    for (const k of [...child.vars.keys()]) if (k !== 'HOME') child.vars.delete(k);
    return child;
  }

  /** Parses `text` as a script of its own and analyses it in `scope`; a script that does not parse whole is judged like a command line that does not. */
  private reanalyse(text: string, scope: Scope, depth: number, j: Judgement): void {
    if (depth + 1 > MAX_REANALYSIS_DEPTH) {
      // Not analysed: read leniently, and refused if it could write.
      const u = scanUnread(text);
      this.unread = { couldWrite: u.couldWrite || this.unread?.couldWrite === true, touchesPath: u.touchesPath || this.unread?.touchesPath === true };
      const why = `it nests scripts more than ${MAX_REANALYSIS_DEPTH} levels deep`;
      return u.couldWrite ? j.raise('deny', `${why}, and the part past that could write files`, 'run the inner commands directly, with fewer shells around them') : j.raise('ask', why);
    }
    const parsed = parseShellAt(text);
    if (parsed.ok) return this.script(parsed.value, scope, depth + 1, null);
    const { script, end } = parsedPrefix(text, parsed.offset);
    const seen = this.commands.length;
    this.script(script, scope, depth + 1, null);
    const rest = scanUnread(text.slice(end));
    const couldWrite = rest.couldWrite || this.commands.slice(seen).some((c) => c.class !== 'approve');
    this.unread = { couldWrite: couldWrite || this.unread?.couldWrite === true, touchesPath: scanUnread(text).touchesPath || this.unread?.touchesPath === true };
    if (couldWrite) j.raise('deny', `its inner script does not parse (${parsed.reason}) and part of it could write files`, 'fix the inner script so that it parses, or run its commands directly');
    else j.raise('ask', `its inner script does not parse (${parsed.reason})`);
  }

  /** `find … -exec CMD ARGS ;`: the inner command is judged like any other (find itself then asks). */
  private findExec(words: Word[], name: string, scope: Scope, depth: number): void {
    if (name !== 'find') return;
    for (let i = 0; i < words.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i]!.value)) continue;
      const end = words.findIndex((w, k) => k > i && (w.value === ';' || w.value === '+'));
      const inner = words.slice(i + 1, end === -1 ? words.length : end);
      const shell = commandName(inner[0]);
      if (shell !== null && SHELLS.has(shell) && inner.some((w) => w.value.includes('{}'))) {
        const j = new Judgement();
        j.raise('ask', `find puts each file name into the text of the ${shell} script, where a name can be code`, undefined, 'find-exec');
        this.record(
          inner.map((w) => w.text),
          false,
          j,
        );
      } else if (inner.length > 0) this.simple({ type: 'simple', assignments: [], words: inner, redirects: [] }, cloneScope(scope), depth, null);
      i = end === -1 ? words.length : end;
    }
  }

  result(): ShellAnalysis {
    const a = summarize(this.commands, this.targets);
    return this.unread ? { ...a, unread: this.unread } : a;
  }
}
