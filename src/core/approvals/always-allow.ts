// Always-allow rules: calls the operator has said never to ask about again. Each rule names
// a tool and matches the call's argument key exactly, by glob or by regex — only as written;
// a pattern matches a shell command only when the command line is one whole simple command.
import { canonicalJson } from '../crypto/canonical-json.js';
import type { ToolKind } from '../event.js';
import { compileGlob } from '../glob.js';
import { fail, ok, type Result } from '../result.js';
import { shellJoin } from '../shell-quote.js';
import type { AlwaysTarget } from './always-scope.js';
import type { AlwaysAllowRule } from './rule-schemas.js';
import { KIND_KEY_PREFIX } from './profiles.js';
import { isOneSimpleCommand } from './simple-command.js';
import { compileStarGlob } from './star-glob.js';

export type { AlwaysAllowRule };

/** The call as the always-allow list sees it. `paths` are worktree-relative. */
export interface AlwaysAllowCall {
  tool: string;
  kind: ToolKind;
  paths: string[];
  input: unknown;
}

interface CompiledRule {
  rule: AlwaysAllowRule;
  /** `kind:` rules name a kind, others a tool. */
  target: { kind: ToolKind } | { tool: string };
  /** A glob or regex (not exact): on a shell command it needs a single simple command. */
  pattern: boolean;
  test: (key: string, isPath: boolean) => boolean;
}

/** The always-allow list, compiled once. */
export interface CompiledAlwaysAllow {
  readonly rules: readonly CompiledRule[];
}

const KINDS: readonly ToolKind[] = ['write', 'shell', 'read', 'other'];

/** An empty list: nothing is always allowed until the operator says so. */
export const NO_ALWAYS_ALLOW: CompiledAlwaysAllow = { rules: [] };

/** Compiles the rules once; an invalid rule (bad regex, unknown kind, two matchers) is an error value. */
export function compileAlwaysAllow(rules: readonly AlwaysAllowRule[]): Result<CompiledAlwaysAllow> {
  const out: CompiledRule[] = [];
  for (const [i, rule] of rules.entries()) {
    const where = `Always-allow rule ${i + 1} (${JSON.stringify(rule?.tool ?? null)})`;
    if (typeof rule?.tool !== 'string' || rule.tool.trim() === '') return fail(`${where} names no tool; give the tool name, e.g. "Bash", or kind:shell.`);
    let target: CompiledRule['target'] = { tool: rule.tool };
    if (rule.tool.startsWith(KIND_KEY_PREFIX)) {
      const kind = rule.tool.slice(KIND_KEY_PREFIX.length) as ToolKind;
      if (!KINDS.includes(kind)) return fail(`${where} names unknown tool kind; use one of ${KINDS.map((k) => KIND_KEY_PREFIX + k).join(', ')}.`);
      target = { kind };
    }
    const m = (typeof rule.match === 'object' && rule.match !== null ? rule.match : {}) as Record<string, unknown>;
    const keys = Object.keys(m).filter((k) => k === 'exact' || k === 'glob' || k === 'regex');
    const key = keys[0];
    const value = key === undefined ? undefined : m[key];
    if (keys.length !== 1 || Object.keys(m).length !== 1 || typeof value !== 'string') {
      return fail(`${where} must match with exactly one of { exact: "…" }, { glob: "…" } or { regex: "…" }.`);
    }
    const test = compileMatcher(key as 'exact' | 'glob' | 'regex', value);
    if (!test.ok) return fail(`${where}: ${test.reason}`);
    out.push({ rule, target, pattern: key !== 'exact', test: test.value });
  }
  return ok({ rules: out });
}

function compileMatcher(type: 'exact' | 'glob' | 'regex', value: string): Result<CompiledRule['test']> {
  if (type === 'exact') return ok((key) => key === value);
  if (value === '') return fail(`an empty ${type} matches nothing useful; write a pattern or use exact.`);
  if (type === 'glob') {
    const path = compileGlob(value).re;
    const text = compileStarGlob(value);
    return ok((key, isPath) => (isPath ? path : text).test(key));
  }
  try {
    // Anchored: a rule written for `npm test` must not admit `npm test; curl … | sh`.
    const re = new RegExp(`^(?:${value})$`, 'u');
    return ok((key) => re.test(key));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return fail(`${JSON.stringify(value)} is not a valid regular expression (${why}); fix it, or use exact or glob.`);
  }
}

/** The keys of one call: `isPath` picks the glob flavour, `isCommand` marks a shell command line. */
interface ArgumentKeys {
  keys: string[];
  isPath: boolean;
  isCommand: boolean;
}

/**
 * The call's argument keys: a shell call's command string; each path of a write call;
 * otherwise the canonical JSON of its input.
 * Null when the input cannot be keyed (not JSON): such a call is never always-allowed.
 */
function argumentKeys(call: AlwaysAllowCall): ArgumentKeys | null {
  if (call.kind === 'shell') {
    const cmd = commandOf(call.input);
    if (cmd !== null) return { keys: [cmd], isPath: false, isCommand: true };
  }
  if (call.kind === 'write' && call.paths.length > 0) return { keys: [...call.paths], isPath: true, isCommand: false };
  try {
    return { keys: [canonicalJson(call.input ?? null)], isPath: false, isCommand: false };
  } catch {
    return null;
  }
}

/** A shell tool's command: a string (`Bash`), or an argv list (some agents) joined as sh would read it. */
function commandOf(input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return null;
  const cmd = (input as Record<string, unknown>).command;
  if (typeof cmd === 'string') return cmd;
  if (Array.isArray(cmd) && cmd.length > 0 && cmd.every((w) => typeof w === 'string')) return shellJoin(cmd as string[]);
  return null;
}

/**
 * The first rule that covers the call, or null. Every key must be matched (a write to
 * two paths needs both allowed), each by some rule for this tool or its kind; a pattern
 * rule covers a shell command only when it is one whole simple command.
 */
export function matchesAlwaysAllow(compiled: CompiledAlwaysAllow, call: AlwaysAllowCall): AlwaysAllowRule | null {
  const applicable = compiled.rules.filter((r) => ('tool' in r.target ? r.target.tool === call.tool : r.target.kind === call.kind));
  if (applicable.length === 0) return null;
  const args = argumentKeys(call);
  if (args === null) return null;
  let first: AlwaysAllowRule | null = null;
  for (const key of args.keys) {
    // Parsed at most once per key, and only when a pattern rule would otherwise decide.
    let single: boolean | undefined;
    const patternMayMatch = (): boolean => !args.isCommand || (single ??= isOneSimpleCommand(key));
    const hit = applicable.find((r) => r.test(key, args.isPath) && (!r.pattern || patternMayMatch()));
    if (hit === undefined) return null;
    first ??= hit.rule;
  }
  return first;
}

/**
 * The rules an "always" resolution adds: exact rules on this tool name for each argument
 * key, so the operator allows exactly what they saw, never a pattern. One rule per path for
 * a multi-path write; empty when the input cannot be keyed.
 */
export function rulesForAlways(call: AlwaysAllowCall): AlwaysAllowRule[] {
  const args = argumentKeys(call);
  if (args === null) return [];
  return args.keys.map((k) => ({ tool: call.tool, match: { exact: k } }));
}

/** What "always" would cover for this call, or null when its input cannot be matched again (no rule is added). */
export function alwaysTargetFor(call: AlwaysAllowCall): AlwaysTarget | null {
  const args = argumentKeys(call);
  if (args === null) return null;
  if (args.isPath) return { tool: call.tool, on: 'paths', paths: args.keys };
  return { tool: call.tool, on: args.isCommand ? 'command' : 'input', paths: [] };
}
