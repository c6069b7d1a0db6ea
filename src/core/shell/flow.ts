// Walks a parsed command line in the order bash runs it, carrying the shell state (directory,
// variables) through sequences, `&&`/`||`, branches, loops and child shells. Simple commands are the subclass's.
import type { AndOr, ForNode, FunctionNode, IfNode, Node, Redirect, Script, SimpleCommand, Word } from './ast.js';
import { expandWord, MAX_FIELDS, type Field } from './expand.js';
import { judgeTargets, type TargetScope } from './judge-targets.js';
import { evaluatesReason, evaluatingWord, Judgement, type ShellClass } from './judgement.js';
import { isDecoderOrDownloader } from './runners.js';
import { assignScope, cloneScope, effectsOf, envOf, havoc, joinScope, type Effects, type Scope } from './scope.js';
import { substituteTarget } from './substitute.js';
import { isForkBomb, someSimpleCommand } from './walk.js';
import type { WriteTarget } from './write-target.js';
import { redirectTargets } from './write-targets.js';

/** The verdict on one simple command. */
export interface SimpleCommandInfo {
  /** Literal values; non-literal words shown as written. */
  argv: string[];
  literal: boolean;
  class: ShellClass;
  reason: string;
  /** For a refusal: what the agent can do instead that the gate allows. */
  instead?: string;
  /** The rule that decided (`deny-list`, `write-target`, `knowledge-base`, `read-only:ls`, …). */
  rule: string;
  /** The knowledge-base entry that decided (`kubectl get`), when one did. */
  kb?: string;
}

/** What runs into a command's standard input, as far as the analysis needs to know. */
export type Feed = 'pipe' | 'decoded' | null;

/** The session facts every target is judged against. */
export interface Limits {
  baseCwd: string;
  protectedPaths: readonly string[];
  confine: string | null;
  restorable: ((abs: string) => boolean) | null;
}

export abstract class FlowAnalyzer {
  readonly commands: SimpleCommandInfo[] = [];
  readonly targets: WriteTarget[] = [];
  /** Functions defined so far in the line, with what a call may change. */
  protected readonly functions = new Map<string, Effects>();

  constructor(protected readonly limits: Limits) {}

  /** Judges a simple command; returns the state it leaves when it fails, if that differs (a `cd`). */
  protected abstract simple(cmd: SimpleCommand, scope: Scope, depth: number, feed: Feed): Scope | null;

  script(s: Script, scope: Scope, depth: number, feed: Feed): void {
    for (const item of s.items) {
      if (item.background) {
        this.node(item.node, cloneScope(scope), depth, feed);
        continue;
      }
      const failed = this.node(item.node, scope, depth, feed);
      if (failed) joinScope(scope, failed);
    }
  }

  /** Analyses `n`, leaving in `scope` the state after it succeeds; returns the state after it fails when that differs. */
  protected node(n: Node, scope: Scope, depth: number, feed: Feed): Scope | null {
    switch (n.type) {
      case 'and_or':
        return this.andOr(n, scope, depth, feed);
      case 'pipeline': {
        // Every command of a real pipe runs in a child shell; a lone negated command does not.
        const alone = n.commands.length === 1;
        let decoded = false;
        n.commands.forEach((c, i) => {
          const failed = this.node(c, alone ? scope : cloneScope(scope), depth, i === 0 ? feed : decoded ? 'decoded' : 'pipe');
          if (alone && failed) joinScope(scope, failed);
          decoded ||= someSimpleCommand(c, isDecoderOrDownloader);
        });
        return null;
      }
      case 'simple':
        return this.simple(n, scope, depth, feed);
      case 'subshell':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        this.script(n.body, cloneScope(scope), depth, feed);
        return null;
      case 'group':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        this.script(n.body, scope, depth, feed);
        return null;
      case 'if':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        return this.ifNode(n, scope, depth, feed);
      case 'loop': {
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        // A body may run many times: what it changes is unknown from its first run on.
        const effects = effectsOf(n, this.functions);
        havoc(scope, effects);
        this.script(n.cond, scope, depth, feed);
        this.script(n.body, scope, depth, feed);
        havoc(scope, effects);
        return null;
      }
      case 'for':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        return this.forNode(n, scope, depth, feed);
      case 'case': {
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        const words = [n.subject, ...n.arms.flatMap((a) => a.patterns)];
        this.subs(words, scope, depth);
        this.evaluated(n.type, words);
        const arms = n.arms.map((a) => {
          const s = cloneScope(scope);
          this.script(a.body, s, depth, feed);
          return s;
        });
        arms.forEach((s) => joinScope(scope, s));
        return null;
      }
      case 'function':
        return this.functionDef(n, scope, depth);
      case 'arith':
      case 'cond':
        this.compoundRedirects(n.type, n.redirects, scope, depth);
        this.evaluated(n.type === 'arith' ? '((' : '[[', n.type === 'arith' ? [n.expr] : n.words, n.type === 'cond');
        this.subs(n.type === 'arith' ? [n.expr] : n.words, scope, depth);
        havoc(scope, effectsOf(n, this.functions));
        return null;
    }
  }

  /**
   * `a && b || c`: each part runs in the state of the chain so far succeeding (after `&&`) or
   * failing (after `||`), so `cd x && w` writes only in x, and `cd x || w` only where it was.
   */
  private andOr(n: AndOr, scope: Scope, depth: number, feed: Feed): null {
    let ok = scope;
    let failed = this.node(n.parts[0]!, ok, depth, feed) ?? cloneScope(ok);
    n.parts.slice(1).forEach((part, i) => {
      const and = n.ops[i] === '&&';
      const run = cloneScope(and ? ok : failed);
      const skipped = and ? failed : ok;
      const partFailed = this.node(part, run, depth, feed) ?? cloneScope(run);
      if (and) {
        ok = run;
        joinScope(skipped, partFailed);
        failed = skipped;
      } else {
        joinScope(skipped, run);
        ok = skipped;
        failed = partFailed;
      }
    });
    if (ok !== scope) assignScope(scope, ok);
    joinScope(scope, failed);
    return null;
  }

  private ifNode(n: IfNode, scope: Scope, depth: number, feed: Feed): null {
    const branches: Scope[] = [];
    for (const c of n.clauses) {
      this.script(c.cond, scope, depth, feed);
      const b = cloneScope(scope);
      this.script(c.body, b, depth, feed);
      branches.push(b);
    }
    const otherwise = cloneScope(scope);
    if (n.elseBody) this.script(n.elseBody, otherwise, depth, feed);
    assignScope(scope, branches[0]!);
    [...branches.slice(1), otherwise].forEach((b) => joinScope(scope, b));
    return null;
  }

  private forNode(n: ForNode, scope: Scope, depth: number, feed: Feed): null {
    const words = [...(n.items ?? []), ...(n.header ? [n.header] : [])];
    this.subs(words, scope, depth);
    this.evaluated(n.keyword, words);
    // The variable takes each item in turn, globs expanded: its values are the items' fields.
    const env = envOf(scope);
    const fields: Field[] | null = n.items === null ? null : n.items.flatMap((w) => expandWord(w, env).fields);
    const effects = effectsOf(n.body, this.functions);
    havoc(scope, effects);
    if (n.variable) scope.vars.set(n.variable, fields && fields.length <= MAX_FIELDS && !effects.names.has(n.variable) && !effects.all ? fields : null);
    this.script(n.body, scope, depth, feed);
    havoc(scope, effects);
    if (n.variable) scope.vars.set(n.variable, null);
    return null;
  }

  /** Analyses the substitutions inside `words`; each runs in a child shell. */
  protected subs(words: readonly Word[], scope: Scope, depth: number): void {
    for (const w of words) for (const s of w.subs) this.script(s, cloneScope(scope), depth, null);
  }

  /** Asks if bash evaluates one of `words` (or, in `[[`, an arithmetic comparison's operand) as arithmetic. */
  protected evaluated(type: string, words: readonly Word[], cond = false): void {
    const w = evaluatingWord(words, cond);
    if (w) this.commands.push({ argv: [type, ...words.map((x) => x.text)], literal: false, class: 'ask', reason: evaluatesReason(w.text), rule: 'evaluates' });
  }

  protected redirectWords(redirects: readonly Redirect[]): Word[] {
    return redirects.flatMap((r) => (r.body ? [r.target, r.body] : [r.target]));
  }

  private functionDef(n: FunctionNode, scope: Scope, depth: number): null {
    if (isForkBomb(n.name, n.body)) {
      this.commands.push({ argv: [`${n.name}()`], literal: true, class: 'deny', reason: 'it defines a function that calls itself in a pipeline or in the background: a fork bomb', rule: 'deny-list' });
    }
    this.functions.set(n.name, effectsOf(n.body, this.functions));
    // The body is judged as if it ran here: a definition is usually followed by a call.
    this.node(n.body, cloneScope(scope), depth, null);
    return null;
  }

  private compoundRedirects(type: string, redirects: readonly Redirect[], scope: Scope, depth: number): void {
    if (redirects.length === 0) return;
    this.subs(this.redirectWords(redirects), scope, depth);
    const env = envOf(scope);
    const targets = redirectTargets(redirects.map((r) => ({ ...r, target: substituteTarget(r.target, env) })));
    if (targets.length === 0) return;
    const j = new Judgement();
    this.targets.push(...j.under('write-target', () => judgeTargets(targets, this.targetScope(scope, scope.cwds), j)));
    this.record([type, ...redirects.map((r) => `${r.fd ?? ''}${r.op}${r.target.text}`)], true, j);
  }

  protected record(argv: string[], literal: boolean, j: Judgement): void {
    this.commands.push({ argv, literal, class: j.class, reason: j.reason, rule: j.rule, ...(j.kb ? { kb: j.kb } : {}), ...(j.class === 'deny' && j.instead ? { instead: j.instead } : {}) });
  }

  protected targetScope(scope: Scope, cwds: readonly string[] | null): TargetScope {
    const { baseCwd, protectedPaths, confine, restorable } = this.limits;
    return { cwds, baseCwd, protectedPaths, confine, restorable, env: envOf(scope) };
  }
}
