// The always-allow rules that "always" answers made: stored beside the queue with a stable id,
// their scope and who made them; added, listed and revoked under the audit log's lock, each step recorded.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AlwaysAllowRule } from '../../core/approvals/always-allow.js';
import { ALWAYS_SCOPES, type AlwaysScope } from '../../core/approvals/always-scope.js';
import { SYSTEM_PREFIX, type Principal } from '../../core/approvals/principal.js';
import { canonicalJson } from '../../core/crypto/canonical-json.js';
import { fail, ok, type Result } from '../../core/result.js';
import { AuditLog } from '../audit/log.js';
import type { AuditEvent } from '../audit/record.js';
import { writeFileAtomic } from '../fs-atomic.js';
import { readRegularText } from '../small-file.js';
import { isSafeSessionId } from '../state-dir.js';
import { isoTime } from '../../core/iso-time.js';

/** A rule made by an "always" answer, as stored. */
export interface StoredRule {
  /** `ar-` and 16 hex digits of the rule's digest: the same rule always gets the same id. */
  id: string;
  tool: string;
  match: AlwaysAllowRule['match'];
  scope: AlwaysScope;
  /** The session a `session` rule belongs to; null for a project rule. */
  session_id: string | null;
  /** The principal who answered "always"; null for a rule stored before rules had ids. */
  created_by: string | null;
  created_at: string | null;
  approval_id: string | null;
}

/** A rule as `approve --rules` and the dashboard list it: made by an answer, or written in the config. */
export interface ListedRule extends StoredRule {
  origin: 'approval' | 'config';
  /** Config rules are not: they are removed by editing the config. */
  revocable: boolean;
}

/** The stored file's format version. */
const RULES_FILE_VERSION = 1;
/** Hex digits of a rule id: 64 bits, so two different rules of one project never share an id. */
const RULE_ID_HEX = 16;
/** A rule id as the CLI and the dashboard take it. */
const RULE_ID_RE = /^(ar|cfg)-[0-9a-f]{16}$/;

/** Where a project's answered rules are kept (inside the protected state folder). */
export function alwaysRulesFile(projectState: string): string {
  return join(projectState, 'approvals', 'always-allow.json');
}

function digestId(prefix: 'ar' | 'cfg', fields: unknown): string {
  return `${prefix}-${createHash('sha256').update(canonicalJson(fields)).digest('hex').slice(0, RULE_ID_HEX)}`;
}

/** The stable id of an answered rule: its tool, match, scope and session. */
export function storedRuleId(r: Pick<StoredRule, 'tool' | 'match' | 'scope' | 'session_id'>): string {
  return digestId('ar', { tool: r.tool, match: r.match, scope: r.scope, session_id: r.session_id });
}

/** The stable id of a config rule: its tool and match. */
export function configRuleId(r: AlwaysAllowRule): string {
  return digestId('cfg', { tool: r.tool, match: r.match });
}

function isMatch(m: unknown): m is AlwaysAllowRule['match'] {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const keys = Object.keys(m);
  return keys.length === 1 && ['exact', 'glob', 'regex'].includes(keys[0]!) && typeof (m as Record<string, unknown>)[keys[0]!] === 'string';
}

const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';

/** One entry read back from disk: a current record, or a bare `{tool, match}` from before rules had ids (a project rule). */
function parseEntry(v: unknown): StoredRule | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const e = v as Record<string, unknown>;
  if (typeof e.tool !== 'string' || e.tool === '' || !isMatch(e.match)) return null;
  const scope = e.scope === undefined ? 'project' : e.scope;
  if (!ALWAYS_SCOPES.includes(scope as AlwaysScope)) return null;
  const session = e.session_id ?? null;
  if (scope === 'session' ? !(typeof session === 'string' && isSafeSessionId(session)) : session !== null) return null;
  if (![e.created_by ?? null, e.created_at ?? null, e.approval_id ?? null].every(strOrNull)) return null;
  const base = { tool: e.tool, match: e.match, scope: scope as AlwaysScope, session_id: session as string | null };
  return {
    id: storedRuleId(base),
    ...base,
    created_by: (e.created_by ?? null) as string | null,
    created_at: (e.created_at ?? null) as string | null,
    approval_id: (e.approval_id ?? null) as string | null,
  };
}

/**
 * The answered rules on file. A missing file is no rules; a file that is not what Gatehouse
 * writes is an error value (the hook then applies none of them, so calls are asked about).
 */
export function readStoredRules(projectState: string): Result<StoredRule[]> {
  const file = alwaysRulesFile(projectState);
  let text: string;
  try {
    text = readRegularText(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok([]);
    return fail(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(`${file} is not valid JSON`);
  }
  const entries = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null && (value as Record<string, unknown>).v === RULES_FILE_VERSION
      ? (value as Record<string, unknown>).rules
      : null;
  if (!Array.isArray(entries)) return fail(`${file} is not an always-allow rules file`);
  const out: StoredRule[] = [];
  for (const [i, e] of entries.entries()) {
    const rule = parseEntry(e);
    if (rule === null) return fail(`${file}: entry ${i + 1} is not a valid rule`);
    if (!out.some((r) => r.id === rule.id)) out.push(rule);
  }
  return ok(out);
}

function writeStoredRules(projectState: string, rules: readonly StoredRule[]): void {
  mkdirSync(dirname(alwaysRulesFile(projectState)), { recursive: true, mode: 0o700 });
  writeFileAtomic(alwaysRulesFile(projectState), `${JSON.stringify({ v: RULES_FILE_VERSION, rules }, null, 2)}\n`, { mode: 0o600 });
}

/** The answered rules that apply in session `sessionId`: every project rule, and that session's own. */
export function rulesInForce(stored: readonly StoredRule[], sessionId: string): StoredRule[] {
  return stored.filter((r) => r.scope === 'project' || r.session_id === sessionId);
}

/** Events read from the end of the log before a full scan: a rule is usually used soon after it is made. */
const RECENT_EVENTS = 256;

/**
 * Whether the audit log vouches for `rule`: its newest add-or-revoke event is an
 * `always_allow_added` for this rule id (or, for a rule from before ids, this tool and match)
 * by a person, not a revocation. A rule written into the file some other way is not applied.
 * An unreadable log vouches for nothing.
 */
export function isRuleRecorded(audit: AuditLog, rule: StoredRule): boolean {
  const about = (e: AuditEvent): boolean => {
    if (e.type !== 'always_allow_added' && e.type !== 'always_allow_revoked') return false;
    const d = e.data as { rule_id?: unknown; tool?: unknown; rule?: unknown };
    if (d.rule_id !== undefined) return d.rule_id === rule.id;
    return e.type === 'always_allow_added' && rule.scope === 'project' && d.tool === rule.tool && d.rule === JSON.stringify(rule.match);
  };
  const vouches = (e: AuditEvent | undefined): boolean => e !== undefined && e.type === 'always_allow_added' && !e.actor.startsWith(SYSTEM_PREFIX);
  try {
    const recent = audit.tail(RECENT_EVENTS).filter(about);
    if (recent.length > 0) return vouches(recent.at(-1));
    let last: AuditEvent | undefined;
    for (const e of audit.events()) if (about(e)) last = e;
    return vouches(last);
  } catch {
    return false;
  }
}

/** What an "always" answer adds. */
export interface AddRules {
  rules: readonly AlwaysAllowRule[];
  scope: AlwaysScope;
  session_id: string;
  principal: Principal;
  approval_id: string;
  now?: Date;
}

/**
 * Adds the rules of one "always" answer and records each as an `always_allow_added` event,
 * under the audit log's lock (every writer of the file takes it, so no update is lost).
 * A rule already on file is kept as it was. Returns the rules as stored.
 */
export function addStoredRules(projectState: string, add: AddRules): StoredRule[] {
  const at = isoTime(add.now ?? new Date());
  const session = add.scope === 'session' ? add.session_id : null;
  const made = add.rules.map((r) => {
    const base = { tool: r.tool, match: r.match, scope: add.scope, session_id: session };
    return { id: storedRuleId(base), ...base, created_by: add.principal.id, created_at: at, approval_id: add.approval_id };
  });
  return new AuditLog(join(projectState, 'audit')).transact((append) => {
    const current = readStoredRules(projectState);
    // A file Gatehouse cannot read is replaced: its rules were not being applied anyway.
    const kept = current.ok ? current.value : [];
    const fresh = made.filter((m) => !kept.some((k) => k.id === m.id));
    writeStoredRules(projectState, [...kept, ...fresh]);
    for (const r of fresh) {
      append({
        type: 'always_allow_added',
        actor: add.principal.id,
        session_id: isSafeSessionId(add.session_id) ? add.session_id : null,
        data: { approval_id: add.approval_id, tool: r.tool, rule: JSON.stringify(r.match), rule_id: r.id, scope: r.scope },
      });
    }
    return made;
  });
}

/** One rule's matcher as a person reads it: `exact "npm test"`. */
export function describeMatch(match: AlwaysAllowRule['match']): string {
  const [kind, value] = Object.entries(match)[0] as [string, string];
  return `${kind} ${JSON.stringify(value)}`;
}

/** Every rule in force for the project: those from answers first, then the config's. */
export function listRules(projectState: string, configRules: readonly AlwaysAllowRule[]): Result<ListedRule[]> {
  const stored = readStoredRules(projectState);
  if (!stored.ok) return fail(`${stored.reason}; revoke cannot read it either: move the file aside (answered rules are then forgotten) or restore it`);
  const fromConfig = configRules.map((r): ListedRule => ({
    id: configRuleId(r),
    tool: r.tool,
    match: r.match,
    scope: 'project',
    session_id: null,
    created_by: null,
    created_at: null,
    approval_id: null,
    origin: 'config',
    revocable: false,
  }));
  return ok([...stored.value.map((r): ListedRule => ({ ...r, origin: 'approval', revocable: true })), ...fromConfig]);
}

/**
 * Revokes answered rule `id` and records `always_allow_revoked` with the principal, under the
 * audit lock. A config rule or an unknown id is an error value that says what to do instead.
 */
export function revokeStoredRule(projectState: string, id: string, principal: Principal, configRules: readonly AlwaysAllowRule[]): Result<StoredRule> {
  if (!RULE_ID_RE.test(id)) return fail(`${JSON.stringify(id)} is not a rule id (they are ar- or cfg- and 16 hex digits); run \`gatehouse approve --rules\` to see them`);
  const inConfig = configRules.find((r) => configRuleId(r) === id);
  if (inConfig !== undefined) {
    return fail(`rule ${id} (${inConfig.tool} ${describeMatch(inConfig.match)}) comes from the project config (approvals.always_allow); remove it there, then start a new session`);
  }
  return new AuditLog(join(projectState, 'audit')).transact((append): Result<StoredRule> => {
    const current = readStoredRules(projectState);
    if (!current.ok) return fail(`${current.reason}; move the file aside (answered rules are then forgotten) or restore it`);
    const rule = current.value.find((r) => r.id === id);
    if (rule === undefined) return fail(`no always-allow rule ${id} in this project (it may have been revoked already); run \`gatehouse approve --rules\` to see the ids`);
    writeStoredRules(
      projectState,
      current.value.filter((r) => r.id !== id),
    );
    append({
      type: 'always_allow_revoked',
      actor: principal.id,
      session_id: rule.session_id,
      data: { rule_id: rule.id, tool: rule.tool, rule: JSON.stringify(rule.match), scope: rule.scope, auth: principal.auth },
    });
    return ok(rule);
  });
}

/** The config's `approvals.always_allow` entries as rules (each has exactly one matcher once the config loaded). */
export function configAlwaysRules(entries: readonly { tool: string; exact?: string | undefined; glob?: string | undefined; regex?: string | undefined }[]): AlwaysAllowRule[] {
  return entries.map((r) => ({ tool: r.tool, match: r.exact !== undefined ? { exact: r.exact } : r.glob !== undefined ? { glob: r.glob } : { regex: r.regex ?? '' } }));
}
