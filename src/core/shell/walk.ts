// Generic traversal of the shell syntax tree: every simple command, including those inside
// compound commands, functions and the substitutions of any word. Used for "does X appear in Y".
import type { Node, Redirect, Script, SimpleCommand, Word } from './ast.js';

/** Calls `visit` for every simple command in `node`, depth first, in source order; stops early when `visit` returns true. */
export function someSimpleCommand(node: Node | Script, visit: (cmd: SimpleCommand) => boolean): boolean {
  const inWords = (words: readonly Word[]): boolean => words.some((w) => w.subs.some((s) => someSimpleCommand(s, visit)));
  const inRedirects = (rs: readonly Redirect[]): boolean => rs.some((r) => inWords(r.body ? [r.target, r.body] : [r.target]));
  switch (node.type) {
    case 'script':
      return node.items.some((i) => someSimpleCommand(i.node, visit));
    case 'and_or':
      return node.parts.some((p) => someSimpleCommand(p, visit));
    case 'pipeline':
      return node.commands.some((c) => someSimpleCommand(c, visit));
    case 'simple':
      return inWords(node.assignments.map((a) => a.value)) || inWords(node.words) || inRedirects(node.redirects) || visit(node);
    case 'subshell':
    case 'group':
      return someSimpleCommand(node.body, visit) || inRedirects(node.redirects);
    case 'if':
      return (
        node.clauses.some((c) => someSimpleCommand(c.cond, visit) || someSimpleCommand(c.body, visit)) ||
        (node.elseBody !== null && someSimpleCommand(node.elseBody, visit)) ||
        inRedirects(node.redirects)
      );
    case 'loop':
      return someSimpleCommand(node.cond, visit) || someSimpleCommand(node.body, visit) || inRedirects(node.redirects);
    case 'for':
      return inWords(node.items ?? []) || inWords(node.header ? [node.header] : []) || someSimpleCommand(node.body, visit) || inRedirects(node.redirects);
    case 'case':
      return inWords([node.subject]) || node.arms.some((a) => inWords(a.patterns) || someSimpleCommand(a.body, visit)) || inRedirects(node.redirects);
    case 'function':
      return someSimpleCommand(node.body, visit);
    case 'arith':
      return inWords([node.expr]) || inRedirects(node.redirects);
    case 'cond':
      return inWords(node.words) || inRedirects(node.redirects);
  }
}

/** True if any substitution inside `word` runs a simple command matching `test`. */
export function wordRuns(word: Word, test: (cmd: SimpleCommand) => boolean): boolean {
  return word.subs.some((s) => someSimpleCommand(s, test));
}

/**
 * True if the function calls itself in a pipeline or in the background (`:(){ :|:& };:`): each
 * call starts at least two more, a fork bomb. Plain recursion is not flagged.
 */
export function isForkBomb(name: string, body: Node | Script): boolean {
  const self = (cmd: SimpleCommand): boolean => cmd.words[0]?.literal === true && cmd.words[0].value === name;
  const forks = (node: Node | Script): boolean => {
    switch (node.type) {
      case 'script':
        return node.items.some((i) => (i.background && someSimpleCommand(i.node, self)) || forks(i.node));
      case 'pipeline':
        return node.commands.some((c) => someSimpleCommand(c, self));
      case 'and_or':
        return node.parts.some(forks);
      case 'subshell':
      case 'group':
        return forks(node.body);
      case 'if':
        return node.clauses.some((c) => forks(c.cond) || forks(c.body)) || (node.elseBody !== null && forks(node.elseBody));
      case 'loop':
        return forks(node.cond) || forks(node.body);
      case 'for':
        return forks(node.body);
      case 'case':
        return node.arms.some((a) => forks(a.body));
      default:
        return false;
    }
  };
  return forks(body);
}
