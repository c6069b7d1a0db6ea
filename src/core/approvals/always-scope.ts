// What an "always" answer would allow, said before anyone gives it: the tool, the exact paths,
// command or input the rule covers, and how long it lasts. Imports nothing: the dashboard uses it too.

/**
 * How long an always-allow rule lasts. `session`: only in the session whose call was
 * answered (the default: a person answered one session's call, and nothing carries into a
 * later one unless they say so). `project`: in this and every later session of the project,
 * until revoked.
 */
export type AlwaysScope = 'session' | 'project';

/** Every scope, for validation. */
export const ALWAYS_SCOPES: readonly AlwaysScope[] = ['session', 'project'];

/**
 * What an always rule made from a call would match, recorded with the request so every
 * surface can show it before anyone answers. `on` says what is compared: the file paths of a
 * write (its content is never part of the rule), the whole command line of a shell call, or the
 * whole input of any other tool. `paths` is empty unless `on` is `paths`.
 */
export interface AlwaysTarget {
  tool: string;
  on: 'paths' | 'command' | 'input';
  paths: string[];
}

/** The scope an "always" decision asks for; null for allow and reject. */
export function alwaysScopeOf(decision: string): AlwaysScope | null {
  return decision === 'always' ? 'session' : decision === 'always-project' ? 'project' : null;
}

/**
 * An approval decision as a person reads it: `always-project` is "always (project)" (JSON and
 * the audit log keep the stored value).
 */
export function describeDecision(decision: string): string {
  return decision === 'always-project' ? 'always (project)' : decision;
}

/** The lifetime of a rule in words. */
export function describeLifetime(scope: AlwaysScope, sessionId?: string | null): string {
  return scope === 'session' ? `in this session only${sessionId ? ` (${sessionId})` : ''}` : 'in this and every later session of this project, until revoked';
}

/** What a rule matches, in words: the tool and exactly which paths, command or input. */
function describeTarget(target: AlwaysTarget): string {
  if (target.on === 'paths') {
    const files = target.paths.join(', ');
    return `every ${target.tool} of ${target.paths.length === 1 ? 'the file' : 'the files'} ${files}, whatever it writes`;
  }
  if (target.on === 'command') return `${target.tool} running exactly the command shown, nothing else`;
  return `${target.tool} with exactly this input, nothing else`;
}

/**
 * The whole scope of the rule an "always" answer would add, shown before it is given.
 * @example describeAlways({ tool: 'Edit', on: 'paths', paths: ['src/a.ts'] }, 'session', 's1')
 * // 'Always allows every Edit of the file src/a.ts, whatever it writes, in this session only (s1)'
 */
export function describeAlways(target: AlwaysTarget | null | undefined, scope: AlwaysScope, sessionId?: string | null): string {
  if (target === undefined) return 'Always: what the rule would cover is not known for this request (filed by an older Gatehouse); answer allow instead.';
  if (target === null) return 'Always adds no rule: this call cannot be matched again, so it is allowed once.';
  return `Always allows ${describeTarget(target)}, ${describeLifetime(scope, sessionId)}`;
}
