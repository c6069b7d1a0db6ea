// The verdict bookkeeping for one command: the highest class seen with its reason (and, for a
// refusal, what to do instead), and the judging of words bash evaluates as code.
import type { Word } from './ast.js';

/** deny: refuse; approve: run without asking; ask: a person decides. */
export type ShellClass = 'deny' | 'approve' | 'ask';

/** Order of severity: the analysis of a command is its most severe finding. */
export const CLASS_RANK: Record<ShellClass, number> = { approve: 0, ask: 1, deny: 2 };

/** The highest class seen so far for one command, with the first reason given at that class. */
export class Judgement {
  class: ShellClass = 'approve';
  reason = 'it only reads';
  /** For a refusal: what the agent can do instead that the gate allows; absent when nothing can. */
  instead: string | undefined;
  /** The rule that set the class (`deny-list`, `write-target`, `knowledge-base`, `read-only:ls`, …). */
  rule = 'read-only';
  /** The knowledge-base entry that set the class, when one did (`kubectl get`). */
  kb: string | undefined;

  /** The rule a raise without one is credited to (see {@link under}). */
  private current = 'classifier';

  raise(c: ShellClass, reason: string, instead?: string, rule = this.current, kb?: string): void {
    if (CLASS_RANK[c] > CLASS_RANK[this.class]) {
      this.class = c;
      this.reason = reason;
      this.instead = instead;
      this.rule = rule;
      this.kb = kb;
    }
  }

  /** Runs `fn`, crediting the raises inside it that name no rule to `rule`. */
  under<T>(rule: string, fn: () => T): T {
    const before = this.current;
    this.current = rule;
    try {
      return fn();
    } finally {
      this.current = before;
    }
  }

  /** Names the rule (and knowledge-base entry) that found the command read-only, while nothing has raised it. */
  approvedBy(rule: string, kb?: string): void {
    if (this.class !== 'approve') return;
    this.rule = rule;
    this.kb = kb;
  }
}

/** `[[ … ]]` operators that compare as arithmetic, evaluating both operands. */
const ARITH_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** Operands that evaluate to themselves: integers and bash's numeric special parameters. */
const PLAIN_NUMBER = /^([+-]?\d+|\$[#?$!]|\$\{#[A-Za-z_@*][A-Za-z0-9_]*\})$/;

/**
 * The first word bash evaluates as arithmetic or a prompt (see `Word.evaluates`); with `cond`,
 * also an operand of an arithmetic `[[ A -eq B ]]` that is not a plain number. Null if none.
 */
export function evaluatingWord(words: readonly Word[], cond: boolean): Word | null {
  const w = words.find((x) => x.evaluates);
  if (w || !cond) return w ?? null;
  for (let i = 0; i < words.length; i++) {
    if (!ARITH_TESTS.has(words[i]!.value)) continue;
    const operand = [words[i - 1], words[i + 1]].find((o) => o && !PLAIN_NUMBER.test(o.value));
    if (operand) return operand;
  }
  return null;
}

/** Why a word that bash evaluates needs a person. */
export function evaluatesReason(text: string): string {
  return `the shell evaluates ${text} (as arithmetic, a prompt or a zsh glob qualifier), where a value can hide a command that runs`;
}
