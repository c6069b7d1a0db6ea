// `gatehouse approve --rules` and `--revoke`: the always-allow rules in force for a project
// (made by "always" answers, or written in the config), and revoking one as the local user.
import { describeLifetime } from '../../core/approvals/always-scope.js';
import type { Principal } from '../../core/approvals/principal.js';
import { safeForDisplay } from '../../core/display.js';
import { configAlwaysRules, describeMatch, listRules, revokeStoredRule, type ListedRule } from '../../runtime/approvals/always-rules.js';
import { loadConfig } from '../../runtime/config.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson } from '../context.js';

/** The config's always-allow rules; a config that does not load is the user's to fix first. */
function configRules(worktree: string): ReturnType<typeof configAlwaysRules> {
  const config = loadConfig({ root: worktree });
  if (!config.ok) throw new UserError(`${config.reason}; fix the config, then list the rules again`);
  return configAlwaysRules(config.value.approvals.always_allow);
}

/** One rule as text: id, tool, matcher, lifetime, and where it came from. */
function ruleLine(r: ListedRule): string {
  if (r.origin === 'config')
    return `${r.id}  ${safeForDisplay(r.tool)} ${safeForDisplay(describeMatch(r.match))}\n    in every session of this project, until removed from the config (approvals.always_allow)\n`;
  const origin = `by ${r.created_by ?? 'an earlier Gatehouse'}${r.created_at ? ` at ${r.created_at}` : ''}`;
  return `${r.id}  ${safeForDisplay(r.tool)} ${safeForDisplay(describeMatch(r.match))}\n    ${describeLifetime(r.scope, r.session_id)} · ${safeForDisplay(origin)}\n`;
}

/** `approve --rules [--json]`. */
export function printRules(projectState: string, worktree: string, json: boolean): void {
  const rules = listRules(projectState, configRules(worktree));
  if (!rules.ok) throw new UserError(rules.reason);
  if (json) return printJson({ rules: rules.value });
  if (rules.value.length === 0) return void process.stdout.write('no always-allow rules: every call that is not otherwise allowed is asked about\n');
  for (const r of rules.value) process.stdout.write(ruleLine(r));
  if (rules.value.some((r) => r.revocable)) process.stdout.write('revoke one with: gatehouse approve --revoke RULE_ID\n');
}

/** `approve --revoke RULE_ID [--json]`. */
export function revokeRule(projectState: string, worktree: string, id: string, principal: Principal, json: boolean): void {
  const r = revokeStoredRule(projectState, id, principal, configRules(worktree));
  if (!r.ok) throw new UserError(r.reason, EXIT.failure);
  if (json) return printJson({ revoked: r.value, revoked_by: principal.id });
  process.stdout.write(`revoked ${r.value.id} (${safeForDisplay(r.value.tool)} ${safeForDisplay(describeMatch(r.value.match))}) as ${principal.id}; those calls are asked about again\n`);
}
