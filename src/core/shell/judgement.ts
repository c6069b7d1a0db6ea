// The verdict bookkeeping for one command: the highest class seen with its reason, the judging
// of write targets (protected paths, unknown paths, disks) and of words bash evaluates as code.
import { isInside } from '../write-gate.js';
import type { Word } from './ast.js';
import { isBlockDevice } from './deny-rules.js';
import { resolvePath } from './paths.js';
import type { WriteTarget } from './write-target.js';

/** deny: refuse; approve: run without asking; ask: a person decides. */
export type ShellClass = 'deny' | 'approve' | 'ask';

/** Order of severity: the analysis of a command is its most severe finding. */
export const CLASS_RANK: Record<ShellClass, number> = { approve: 0, ask: 1, deny: 2 };

/** The highest class seen so far for one command, with the first reason given at that class. */
export class Judgement {
  class: ShellClass = 'approve';
  reason = 'it only reads';

  raise(c: ShellClass, reason: string): void {
    if (CLASS_RANK[c] > CLASS_RANK[this.class]) {
      this.class = c;
      this.reason = reason;
    }
  }
}

/** Where targets are resolved and what they must not touch. */
export interface TargetScope {
  /** The directory the command runs in, or null after a `cd` that could not be followed. */
  cwd: string | null;
  /** The session's directory: targets relative to it are reported as written. */
  baseCwd: string;
  /** Normalised absolute protected paths. */
  protectedPaths: readonly string[];
}

/**
 * Judges each target into `j` and returns them as reported: relative paths after a `cd` become
 * absolute, and relative paths under an unknown directory are marked not literal.
 */
export function judgeTargets(targets: readonly WriteTarget[], scope: TargetScope, j: Judgement): WriteTarget[] {
  const { cwd } = scope;
  return targets.map((t) => {
    const abs = t.literal ? resolvePath(cwd, t.path) : null;
    const verb = t.kind === 'delete' ? 'deletes' : t.kind === 'create' ? 'creates' : 'writes';
    if (!t.literal) j.raise('ask', `it ${verb} ${t.path} (${t.via}), a path only known at run time`);
    else if (abs === null) j.raise('ask', `it ${verb} ${t.path} (${t.via}) after a change of directory Gatehouse could not follow`);
    else if (isBlockDevice(abs)) j.raise('deny', `it writes straight to the disk device ${abs}, destroying its file systems`);
    else {
      const hit = scope.protectedPaths.find((p) => isInside(p, abs) || (t.recursive && isInside(abs, p)));
      if (hit) j.raise('deny', `it ${verb} ${t.path} (${t.via}), ${isInside(hit, abs) ? 'inside' : 'which holds'} the supervisor's own files (${hit}); an agent may never change them`);
      else j.raise('ask', `it ${verb} ${t.path} (${t.via})`);
    }
    if (abs === null) return t.literal ? { ...t, literal: false } : t;
    return cwd !== scope.baseCwd && !t.path.startsWith('/') ? { ...t, path: abs } : t;
  });
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
