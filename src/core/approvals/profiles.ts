// Permission profiles: which tools an agent may call at all, where it may write, and which
// shell commands it may run. Fail-closed: a tool the profile does not name is refused.
import type { ToolKind } from '../event.js';
import type { ProfileSpec, ToolRule } from './rule-schemas.js';
import { compileGlob, matchesAny, type CompiledGlob } from '../glob.js';
import { fail, ok, type Result } from '../result.js';
import { APPROVE_CLASS_ENTRY, compileShellAllow, shellCommandAllowed, type ShellAllowEntry } from './shell-allow.js';
import type { ShellAnalysis } from '../shell/index.js';
import { sentence } from '../sentence.js';

export type { ProfileSpec };

/** The names of the built-in profiles. */
type BuiltinProfileName = 'read-only' | 'builder' | 'reviewer';

/** One tool call as the profile sees it. `paths` are worktree-relative. */
export interface ProfileCall {
  tool: string;
  kind: ToolKind;
  paths: string[];
  shell?: ShellAnalysis;
}

/** A rule, compiled: `null` paths means anywhere. */
interface CompiledRule {
  paths: CompiledGlob[] | null;
  pathSources: string[];
}

/** A profile ready to check calls against (compile it once per session). */
export interface CompiledProfile {
  readonly name: string;
  /** Set when the profile refuses everything (unknown name, invalid spec): the reason. */
  readonly denyAll: string | null;
  readonly byName: ReadonlyMap<string, CompiledRule | false>;
  readonly byKind: ReadonlyMap<ToolKind, CompiledRule | false>;
  /** `null` = any shell command passes the profile. */
  readonly shellAllow: readonly ShellAllowEntry[] | null;
}

/** Marks a `tools` key as a core tool kind rather than a tool name. */
export const KIND_KEY_PREFIX = 'kind:';

const TOOL_KINDS: readonly ToolKind[] = ['write', 'shell', 'read', 'other'];

/** Where the reviewer may write: its own notes, never the code under review. */
const REVIEW_PATHS = ['review/**', '**/*.review.md'];

/**
 * Test and lint runners the reviewer may start. They run project code, so this is a
 * posture, not a sandbox; installs (`npm install`, `pip install`) stay out.
 */
const REVIEWER_COMMANDS = [
  'npm test',
  'npm run test',
  'npm run lint',
  'npm run check',
  'npx vitest',
  'npx eslint',
  'npx tsc --noEmit',
  'pytest',
  'python -m pytest',
  'python3 -m pytest',
  'ruff check',
  'go test',
  'go vet',
  'cargo test',
  'cargo clippy',
  'make check',
  'make test',
  'make lint',
];

const READ_ONLY: ProfileSpec = {
  tools: {
    Read: true,
    Glob: true,
    Grep: true,
    LS: true,
    NotebookRead: true,
    // The agent's own task list (TodoWrite, or the Task* tools that replace it): bookkeeping, not work.
    TodoWrite: true,
    TaskCreate: true,
    TaskUpdate: true,
    TaskGet: true,
    TaskList: true,
    // Off: fetching from the network is a way out for data, and a way in for instructions.
    WebFetch: false,
    WebSearch: false,
    Bash: true,
    // Other agents' read and shell tools, under the same limits.
    'kind:read': true,
    'kind:shell': true,
  },
  shell: { allow: [APPROVE_CLASS_ENTRY] },
};

const reviewWrite: ToolRule = { paths: REVIEW_PATHS };

/** The built-in profiles, in Claude Code's tool names plus kind rules for every other agent. */
const BUILTIN_PROFILES: Readonly<Record<BuiltinProfileName, ProfileSpec>> = {
  'read-only': READ_ONLY,
  builder: {
    // Everything; `**` keeps writes inside the worktree (absolute and `..` paths never match).
    tools: { 'kind:read': true, 'kind:write': { paths: ['**'] }, 'kind:shell': true, 'kind:other': true },
  },
  reviewer: {
    tools: {
      ...READ_ONLY.tools,
      Write: reviewWrite,
      Edit: reviewWrite,
      MultiEdit: reviewWrite,
      NotebookEdit: reviewWrite,
      'kind:write': reviewWrite,
    },
    shell: { allow: [APPROVE_CLASS_ENTRY, ...REVIEWER_COMMANDS] },
  },
};

/** Compiles one profile spec, or says which part of it is wrong. Config loading calls this to report errors early. */
export function compileProfileSpec(name: string, spec: ProfileSpec): Result<CompiledProfile> {
  const where = `Permission profile ${JSON.stringify(name)}`;
  if (typeof spec !== 'object' || spec === null || typeof spec.tools !== 'object' || spec.tools === null) {
    return fail(`${where} has no tools map; list the tools it allows, e.g. tools: { Read: true }.`);
  }
  const byName = new Map<string, CompiledRule | false>();
  const byKind = new Map<ToolKind, CompiledRule | false>();
  for (const [key, value] of Object.entries(spec.tools)) {
    const rule = compileRule(value);
    if (!rule.ok) return fail(`${where}, tool ${JSON.stringify(key)}: ${rule.reason}`);
    if (key.startsWith(KIND_KEY_PREFIX)) {
      const kind = key.slice(KIND_KEY_PREFIX.length) as ToolKind;
      if (!TOOL_KINDS.includes(kind)) {
        return fail(`${where} names unknown tool kind ${JSON.stringify(key)}; use one of ${TOOL_KINDS.map((k) => KIND_KEY_PREFIX + k).join(', ')}.`);
      }
      byKind.set(kind, rule.value);
    } else if (key.trim() === '') {
      return fail(`${where} has an empty tool name; write the agent's tool name, e.g. "Read".`);
    } else {
      byName.set(key, rule.value);
    }
  }
  let shellAllow: ShellAllowEntry[] | null = null;
  if (spec.shell !== undefined) {
    if (!Array.isArray(spec.shell.allow)) return fail(`${where}: shell.allow must be a list of command prefixes, e.g. ["npm test"].`);
    const compiled = compileShellAllow(spec.shell.allow);
    if (!compiled.ok) return fail(`${where}: ${compiled.reason}`);
    shellAllow = compiled.value;
  }
  return ok({ name, denyAll: null, byName, byKind, shellAllow });
}

function compileRule(value: ToolRule | boolean): Result<CompiledRule | false> {
  if (value === false) return ok(false);
  if (value === true) return ok({ paths: null, pathSources: [] });
  if (typeof value !== 'object' || value === null) return fail('the rule must be true, false or { paths: [...] }.');
  if (value.paths === undefined) return ok({ paths: null, pathSources: [] });
  if (!Array.isArray(value.paths) || value.paths.length === 0 || value.paths.some((p) => typeof p !== 'string' || p.trim() === '')) {
    return fail('paths must be a non-empty list of globs; to refuse the tool write false instead.');
  }
  return ok({ paths: value.paths.map(compileGlob), pathSources: [...value.paths] });
}

/**
 * The named profile, compiled: `custom` (from config) first, then the built-ins. An unknown
 * name or an invalid spec gives a profile that refuses everything and says why.
 */
export function compileProfile(name: string, custom: Readonly<Record<string, ProfileSpec>>): CompiledProfile {
  const spec = Object.hasOwn(custom, name) ? custom[name] : Object.hasOwn(BUILTIN_PROFILES, name) ? BUILTIN_PROFILES[name as BuiltinProfileName] : undefined;
  if (spec === undefined) {
    const known = [...Object.keys(custom), ...Object.keys(BUILTIN_PROFILES)].join(', ');
    return denyAllProfile(
      name,
      `The permission profile ${JSON.stringify(name)} is not defined, so every tool call is refused. Stop and tell the operator: they must define it under permissions or choose a known profile (${known}).`,
    );
  }
  const compiled = compileProfileSpec(name, spec);
  if (compiled.ok) return compiled.value;
  return denyAllProfile(name, `${compiled.reason} Until it is fixed every tool call is refused; stop and tell the operator.`);
}

function denyAllProfile(name: string, reason: string): CompiledProfile {
  return { name, denyAll: reason, byName: new Map(), byKind: new Map(), shellAllow: [] };
}

/** Targets that look like writes but store nothing, so no profile refuses them. */
const WRITE_SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/**
 * Checks one call against a profile. Order: the name rule, else the kind rule, else refused;
 * then paths; for shell calls every simple command against `shell.allow` and every write
 * target against `kind:write`.
 */
export function checkProfile(p: CompiledProfile, call: ProfileCall): { ok: true } | { ok: false; reason: string } {
  if (p.denyAll !== null) return { ok: false, reason: p.denyAll };
  const rule = p.byName.has(call.tool) ? p.byName.get(call.tool) : p.byKind.get(call.kind);
  if (rule === undefined || rule === false) {
    return refuse(
      p,
      `does not allow ${call.tool}`,
      `Do not reach the same effect through another tool; use what it allows (${allowedList(p)}), or ask the operator to allow ${call.tool} or switch profile.`,
    );
  }
  if (call.kind !== 'shell') return checkPaths(p, rule, call.tool, call.paths);
  return checkShell(p, rule, call);
}

function checkPaths(p: CompiledProfile, rule: CompiledRule, what: string, paths: readonly string[]): { ok: true } | { ok: false; reason: string } {
  if (rule.paths === null) return { ok: true };
  const where = rule.pathSources.join(', ');
  if (paths.length === 0) return refuse(p, `allows ${what} only on ${where}, and this call names no path`, 'Call it with an explicit path inside those globs.');
  for (const raw of paths) {
    const rel = insideWorktree(raw);
    if (rel === null || !matchesAny(rel, rule.paths)) {
      return refuse(p, `allows ${what} only on ${where}; ${JSON.stringify(raw)} is outside them`, 'Write there instead, or finish without this change and say so, so the operator can allow it.');
    }
  }
  return { ok: true };
}

function checkShell(p: CompiledProfile, rule: CompiledRule, call: ProfileCall): { ok: true } | { ok: false; reason: string } {
  const sh = call.shell;
  if (p.shellAllow !== null) {
    const allowed = p.shellAllow.map((e) => (e.type === 'approve-class' ? 'read-only commands' : e.source)).join(', ');
    if (sh === undefined || !sh.parsed) {
      return refuse(
        p,
        `allows only some shell commands (${allowed}), and this command line could not be analysed`,
        'Write it as plain simple commands joined by &&, ; or |, without here-docs or nested shells.',
      );
    }
    for (const c of sh.commands) {
      if (shellCommandAllowed(p.shellAllow, c)) continue;
      const shown = JSON.stringify(c.argv.join(' '));
      const hint = c.literal ? '' : ' (it uses $variables, substitutions or globs, so only its classifier rating counts: write it out literally)';
      return refuse(p, `allows only these shell commands: ${allowed}; ${shown} is not one of them${hint}`, 'Run one of those instead, or ask the operator to run it for you or switch profile.');
    }
  }
  if (sh === undefined) return { ok: true };
  const targets = sh.writeTargets.filter((t) => !WRITE_SINKS.has(t.path));
  if (targets.length === 0) return { ok: true };
  const write = p.byKind.get('write');
  for (const t of targets) {
    if (write === undefined || write === false) {
      return refuse(
        p,
        `does not allow writes, and this command writes ${JSON.stringify(t.path)} (via ${t.via})`,
        'Run it without writing (drop the redirection or the writing command), or ask the operator to switch profile.',
      );
    }
    const inWrite = checkPaths(p, write, `writes (here via ${t.via})`, [t.path]);
    if (!inWrite.ok) return inWrite;
    const inShell = checkPaths(p, rule, `${call.tool} writes`, [t.path]);
    if (!inShell.ok) return inShell;
  }
  return { ok: true };
}

function refuse(p: CompiledProfile, what: string, next: string): { ok: false; reason: string } {
  return { ok: false, reason: `${sentence(`The permission profile ${JSON.stringify(p.name)} ${what}`)} ${next}` };
}

function allowedList(p: CompiledProfile): string {
  const names = [...p.byName].filter(([, r]) => r !== false).map(([n]) => n);
  const kinds = [...p.byKind].filter(([, r]) => r !== false).map(([k]) => `other ${k} tools`);
  const all = [...names, ...kinds];
  return all.length === 0 ? 'nothing' : all.join(', ');
}

/**
 * `path` as a normalised worktree-relative path, or null if it leaves the worktree
 * (absolute, `..`, `~`, `$VAR`): such a path never matches a profile's globs.
 */
export function insideWorktree(path: string): string | null {
  if (path.startsWith('/') || path.startsWith('~') || path.startsWith('$') || /^[A-Za-z]:[\\/]/.test(path)) return null;
  const parts: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return null;
    parts.push(seg);
  }
  return parts.length === 0 ? null : parts.join('/');
}
