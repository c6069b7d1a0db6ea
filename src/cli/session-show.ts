// `gatehouse session show`: one session's status, its policy as start recorded it, and its
// recent gate decisions from the audit log, each read only through a path that is verified.
import { trustedCopies } from '../gate/session-trusted.js';
import { safeForDisplay } from '../core/display.js';
import { describeDecision, endVerdictView } from '../core/decision-words.js';
import type { Policy } from '../core/policy.js';
import { sessionDecisions, type SessionDecisions } from '../runtime/session-decisions.js';
import type { SessionMeta, SessionStore } from '../runtime/session-store.js';
import { outputColumns, wrapBlock } from './audit-lines.js';
import { UserError } from './exit-codes.js';
import { printJson } from './context.js';

/** Decision lines start here; their reasons one step further in. */
const ITEM_INDENT = '    ';
const REASON_INDENT = '      ';

/** Any value read back from a file, as display text. */
function safe(value: unknown): string {
  return safeForDisplay(String(value));
}

/** The decision lines: each event's time and what it decided, then its reason, wrapped. */
function decisionLines(found: SessionDecisions, worktree: string | null, columns: number): string[] {
  const warning = found.audit.verified
    ? []
    : wrapBlock(
        `WARNING: the audit log does not verify (${found.audit.problem ?? 'unknown problem'}); these records may have been edited. Run \`gatehouse audit verify --key\` with a key you hold.`,
        ITEM_INDENT,
        columns,
      );
  if (found.total === 0) {
    return [...wrapBlock('recent gate decisions: none recorded yet (refused writes, stop verdicts, approvals and the end-of-session check appear here)', '  ', columns), ...warning];
  }
  const shown = found.events.length;
  const lines = wrapBlock(
    `recent gate decisions (${shown === found.total ? `all ${found.total}` : `last ${shown} of ${found.total}`}, oldest first; \`gatehouse audit tail\` prints every event):`,
    '  ',
    columns,
  );
  lines.push(...warning);
  for (const e of found.events) {
    const { what, reason } = describeDecision(e, worktree);
    lines.push(...wrapBlock(`${String(e.time)} ${what}`, ITEM_INDENT, columns));
    // One wrapped block per line of the reason, so a list of failed checks reads as a list.
    for (const line of reason.split('\n')) lines.push(...wrapBlock(line.trim(), REASON_INDENT, columns));
  }
  return lines;
}

/** The end verdict's lines ({@link endVerdictView}): meta.json's is said to be unsigned, and a disagreement is flagged. */
function verdictLines(m: SessionMeta, found: SessionDecisions): string[] {
  const indent = '            ';
  const v = endVerdictView(m.end_verdict, found.endVerdict);
  if (v === null) return ['  verdict:  (no end-of-session check yet)'];
  const note = v.source === 'meta' ? ' (unsigned: the audit log records no end-of-session check for it)' : '';
  const [first = '', ...rest] = v.summary.split('\n');
  const out = [`  verdict:  ${v.word}${first !== '' ? ` — ${safe(first)}` : ''}${note}`, ...rest.map((line) => `${indent}${safe(line)}`)];
  if (v.metaSays !== null) {
    out.push(`${indent}WARNING: meta.json says ${v.metaSays}; the audit log's record above is the one that counts (meta.json was changed outside Gatehouse).`);
  }
  return out;
}

/** The policy lines, from the verified copy only. */
function policyLines(policy: Policy | null, problem: string | null, columns: number): string[] {
  if (policy === null) return wrapBlock(`policy:   not shown: ${problem ?? 'unknown problem'}`, '  ', columns);
  // Matching its start digest says who wrote it, not that it is well formed: read it defensively.
  const allow = Array.isArray(policy.allow) ? policy.allow.map(String) : [];
  const producers = Array.isArray(policy.producers) ? policy.producers : [];
  const command = (x: { command?: unknown }): string => (Array.isArray(x.command) ? x.command.map(String).join(' ') : '');
  return [
    `  allow:    ${safeForDisplay(allow.join(', ')) || '(none)'}`,
    `  requires: ${safeForDisplay(producers.map((x) => `${String(x.name)} (${command(x)})`).join(', ')) || '(none)'}`,
    `  posture:  ${safe(policy.posture)}`,
    `  sandbox:  ${sandboxLine(policy)}`,
  ];
}

/** The sandbox a policy names, or that there was none. */
function sandboxLine(policy: Policy): string {
  const s = policy.sandbox;
  if (s === null || s === undefined || typeof s !== 'object') return 'none (the agent ran as your user)';
  const writable = Array.isArray(s.writable) ? s.writable.map(String).join(', ') : '';
  return safeForDisplay(`${String(s.engine)} ${String(s.version)}, network ${String(s.network)}, writable ${writable}`);
}

/**
 * Prints one session, as text or (with `json`) as `{meta, policy, policy_problem, dir, decisions}`.
 * `limit` is how many recent decisions to include.
 */
export function showSession(store: SessionStore, flags: { json?: boolean; limit: number }): void {
  const meta = store.meta();
  if (!meta.ok) throw new UserError(meta.reason);
  const copies = trustedCopies(store);
  const policy = copies.ok ? copies.value.policy : null;
  const problem = copies.ok ? null : copies.reason;
  const found = sessionDecisions(store.projectState, store.id, flags.limit);
  if (flags.json) {
    printJson({
      meta: meta.value,
      policy,
      policy_problem: problem,
      dir: store.dir,
      decisions: { events: found.events, total: found.total, end_verdict: found.endVerdict, audit_verified: found.audit.verified, audit_problem: found.audit.problem },
    });
    return;
  }
  const m: SessionMeta = meta.value;
  const columns = outputColumns(process.stdout, process.env);
  process.stdout.write(
    [
      // meta.json is rewritten over the session's life, so no digest covers it: every field is made safe.
      `session ${safe(m.id)} (${safe(m.agent)}) ${safe(m.status)}`,
      `  worktree: ${safe(m.worktree)}`,
      `  started:  ${safe(m.started_at)}${m.ended_at ? `, ended ${safe(m.ended_at)}` : ''}`,
      ...policyLines(policy, problem, columns),
      ...verdictLines(m, found),
      `  log:      ${store.path('log')}`,
      ...decisionLines(found, policy?.worktree ?? m.worktree, columns),
      '',
    ].join('\n'),
  );
}
