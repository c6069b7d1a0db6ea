// What the analysis knows, at one point of a command line, about where commands run and what
// the variables hold: the state that `cd`, assignments and builtins change, and how branches merge.
import type { Node, Script } from './ast.js';
import { commandName, unwrapCommand } from './command-line.js';
import type { ExpandEnv, Field } from './expand.js';

/** The state of the shell as far as the analysis follows it. */
export interface Scope {
  /**
   * The directories commands may run in; the first is the one reached when every `cd` succeeded
   * (where targets are reported), the others are reached when one failed. Null: unknown.
   */
  cwds: string[] | null;
  /** Variables assigned in this command line (and HOME from the session): their possible values, or null when unknown. */
  vars: Map<string, Field[] | null>;
}

/**
 * Most directories followed at once: each `cd` that may fail doubles them. A real command line
 * has one or two; past this the directory is unknown, and relative targets can be anywhere.
 */
const MAX_CWD_ALTERNATIVES = 8;

/** Most values one variable is followed with (alternatives from branches and loops); past it, unknown. */
const MAX_VALUE_ALTERNATIVES = 16;

/** A new scope for a command line run in `cwd` by a user whose home folder is `home` (null: unknown). */
export function newScope(cwd: string, home: string | null): Scope {
  const vars = new Map<string, Field[] | null>();
  if (home !== null) vars.set('HOME', [[{ kind: 'text', text: home }]]);
  return { cwds: [cwd], vars };
}

export function cloneScope(s: Scope): Scope {
  return { cwds: s.cwds && [...s.cwds], vars: new Map(s.vars) };
}

/** Makes `into` the same state as `from`. */
export function assignScope(into: Scope, from: Scope): void {
  into.cwds = from.cwds && [...from.cwds];
  into.vars = new Map(from.vars);
}

/** Merges `other` into `into`: afterwards either may be the state (the first directory of `into` stays first). */
export function joinScope(into: Scope, other: Scope): void {
  if (into.cwds === null || other.cwds === null) into.cwds = null;
  else {
    const all = [...new Set([...into.cwds, ...other.cwds])];
    into.cwds = all.length > MAX_CWD_ALTERNATIVES ? null : all;
  }
  for (const name of new Set([...into.vars.keys(), ...other.vars.keys()])) {
    const a = into.vars.get(name);
    const b = other.vars.get(name);
    // Assigned on one side only: the other side holds whatever was inherited, which is unknown.
    if (a === undefined || b === undefined || a === null || b === null) into.vars.set(name, null);
    else {
      const keys = new Set(a.map((f) => JSON.stringify(f)));
      const merged = [...a, ...b.filter((f) => !keys.has(JSON.stringify(f)))];
      into.vars.set(name, merged.length > MAX_VALUE_ALTERNATIVES ? null : merged);
    }
  }
}

/** The expansion environment of a scope: its variables, and PWD from its directories unless assigned. */
export function envOf(s: Scope): ExpandEnv {
  return {
    lookup: (name) => {
      if (name === 'PWD' && !s.vars.has('PWD')) return s.cwds && s.cwds.map((c) => [{ kind: 'text', text: c }]);
      return s.vars.get(name);
    },
    ifsChanged: s.vars.has('IFS'),
  };
}

/** What a piece of script may change: variables by name, the directory, or anything at all. */
export interface Effects {
  names: Set<string>;
  cd: boolean;
  all: boolean;
}

/** Builtins that assign the variables named in their arguments. */
const ASSIGNING_BUILTINS = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'read', 'mapfile', 'readarray', 'unset', 'printf', 'getopts', 'let']);

/** Builtins that change the directory. */
export const CD_BUILTINS = new Set(['cd', 'pushd', 'popd']);

/** Commands after which the analysis knows nothing of the shell's state: they run text it does not follow. */
const STATE_RUNNERS = new Set(['source', '.', 'eval']);

/** The identifiers in a text (for `let` and arithmetic, which may assign any of them). */
function identifiers(text: string): string[] {
  return text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
}

/**
 * What running `node` may change in the current shell. Functions defined in the line are looked
 * up in `functions`. Over-approximates: substitutions are counted though they run in child shells.
 */
export function effectsOf(node: Node | Script, functions: ReadonlyMap<string, Effects>): Effects {
  const e: Effects = { names: new Set(), cd: false, all: false };
  const visit = (n: Node | Script): void => {
    switch (n.type) {
      case 'script':
        return n.items.forEach((i) => visit(i.node));
      case 'and_or':
        return n.parts.forEach(visit);
      case 'pipeline':
        return n.commands.forEach(visit);
      case 'subshell':
      case 'group':
        return visit(n.body);
      case 'if':
        n.clauses.forEach((c) => (visit(c.cond), visit(c.body)));
        if (n.elseBody) visit(n.elseBody);
        return;
      case 'loop':
        visit(n.cond);
        return visit(n.body);
      case 'for':
        if (n.variable) e.names.add(n.variable);
        return visit(n.body);
      case 'case':
        return n.arms.forEach((a) => visit(a.body));
      case 'function':
        return;
      case 'arith':
        identifiers(n.expr.value).forEach((x) => e.names.add(x));
        return;
      case 'cond':
        return;
      case 'simple': {
        if (n.words.length === 0) n.assignments.forEach((a) => e.names.add(a.name));
        if (n.words.length === 0) return;
        const words = unwrapCommand(n.words).words;
        const name = commandName(words[0]);
        if (name === null || STATE_RUNNERS.has(name)) e.all = true;
        else if (CD_BUILTINS.has(name)) e.cd = true;
        else if (ASSIGNING_BUILTINS.has(name)) words.slice(1).forEach((w) => identifiers(w.value.split('=')[0]!).forEach((x) => e.names.add(x)));
        const f = name === null ? undefined : functions.get(name);
        if (f) merge(e, f);
      }
    }
  };
  visit(node);
  return e;
}

function merge(into: Effects, e: Effects): void {
  e.names.forEach((n) => into.names.add(n));
  into.cd ||= e.cd;
  into.all ||= e.all;
}

/** Forgets what `e` may have changed. */
export function havoc(s: Scope, e: Effects): void {
  if (e.all) {
    s.cwds = null;
    for (const k of [...s.vars.keys()]) s.vars.set(k, null);
    // Inherited variables may be reassigned too: HOME and PWD among them.
    s.vars.set('HOME', null);
    s.vars.set('PWD', null);
    s.vars.set('IFS', null);
    return;
  }
  if (e.cd) {
    s.cwds = null;
    s.vars.delete('PWD');
  }
  for (const n of e.names) s.vars.set(n, null);
}
