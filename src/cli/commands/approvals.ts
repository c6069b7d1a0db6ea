// `gatehouse approve`, `gatehouse serve` and `gatehouse tui`: the three surfaces that
// resolve the one approval queue, each naming who decided.
import { Command } from 'commander';
import { ALWAYS_SCOPES, describeAlways, describeDecision, describeLifetime, type AlwaysScope } from '../../core/approvals/always-scope.js';
import { osUserPrincipal, type Principal } from '../../core/approvals/principal.js';
import { safeForDisplay } from '../../core/approvals/summary.js';
import { ApprovalQueue, type ApprovalDecision } from '../../runtime/approvals/index.js';
import { osUserName } from '../../runtime/recorder.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson, projectStateFor } from '../context.js';
import { printRules, revokeRule } from './approve-rules.js';

type Flags = { worktree?: string; stateDir?: string; json?: boolean };

/** The person at this terminal, as a principal (`os-user:<name>`, `local-shell`). */
function localPrincipal(): Principal {
  const p = osUserPrincipal(osUserName());
  if (!p.ok) throw new UserError(p.reason);
  return p.value;
}

function secondsLeft(expiresAt: string): number {
  return Math.max(0, Math.round((Date.parse(expiresAt) - Date.now()) / 1000));
}

/** `gatehouse approve`. */
export function approveCommand(): Command {
  return new Command('approve')
    .description('resolve a pending tool-call approval (allow by default), or list them')
    .argument('[id]', 'approval id (ap-…); or use --latest')
    .option('--latest', 'the most recent pending approval (not with --always: give the id from --list)')
    .option('--deny', 'reject instead of allowing')
    .option('--always', 'allow, and allow exactly this call again (see --list for what the rule covers)')
    .option('--scope <scope>', 'with --always: session (default: this session only) or project (every later session too, until revoked)', 'session')
    .option('--reason <text>', 'reason (the agent sees it on a rejection)')
    .option('--list', 'list pending approvals instead, each with what --always would allow')
    .option('--rules', 'list the always-allow rules in force (ids, scope, who made them)')
    .option('--revoke <rule-id>', 'revoke an always-allow rule made by an answer (ar-…)')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print as JSON')
    .addHelpText(
      'after',
      '\n--always adds a rule for exactly this call: the same file paths (whatever is written to them), the same whole command, or the same input.' +
        '\nIt lasts for this session only unless you pass --scope project. It needs the id from --list, never --latest.' +
        '\n\nExit status: 0 resolved (or listed, or revoked), 1 not found / already resolved / nonce mismatch / unknown rule, 2 usage.',
    )
    .action((id: string | undefined, flags: Flags & { latest?: boolean; deny?: boolean; always?: boolean; scope: string; reason?: string; list?: boolean; rules?: boolean; revoke?: string }) => {
      const worktree = flags.worktree ?? '.';
      const state = projectStateFor(flags.worktree, flags.stateDir);
      refuseConflictingModes(id, flags);
      if (flags.rules) return printRules(state, worktree, flags.json === true);
      if (flags.revoke !== undefined) return revokeRule(state, worktree, flags.revoke, localPrincipal(), flags.json === true);
      if (!ALWAYS_SCOPES.includes(flags.scope as AlwaysScope)) throw new UserError(`--scope must be session or project, got ${JSON.stringify(flags.scope)}`, EXIT.usage);
      const scope = flags.scope as AlwaysScope;
      if (scope === 'project' && !flags.always) throw new UserError('--scope project widens an --always rule; add --always, or leave --scope out', EXIT.usage);
      const queue = new ApprovalQueue(state);
      // Deny what dead hook processes left waiting, so the list shows only live requests.
      queue.sweep();
      if (flags.list) {
        const pending = queue.list();
        if (flags.json) return printJson(pending);
        if (pending.length === 0) return void process.stdout.write('nothing is waiting for approval\n');
        // The whole summary, never cut (the terminal wraps it); records are files, so make them safe to print.
        for (const p of pending) {
          process.stdout.write(`${p.id}  ${safeForDisplay(p.tool).padEnd(10)} ${secondsLeft(p.expires_at)}s left  session ${safeForDisplay(p.session_id)}  ${safeForDisplay(p.summary)}\n`);
          const wider = p.always ? `; --always --scope project: the same, ${describeLifetime('project')}` : '';
          process.stdout.write(`    --always: ${safeForDisplay(describeAlways(p.always, 'session', p.session_id))}${wider}\n`);
        }
        return;
      }
      if (flags.deny && flags.always) throw new UserError('--deny and --always contradict each other; pick one', EXIT.usage);
      if (id === undefined && flags.latest !== true) throw new UserError('give an approval id or --latest (or --list to see what is waiting)', EXIT.usage);
      if (id !== undefined && flags.latest === true) throw new UserError('give an approval id or --latest, not both', EXIT.usage);
      // The agent can file a request between the operator's --list and this command, so a
      // rule made from --latest could cover a call no one saw.
      if (flags.latest && flags.always) throw new UserError('--always needs the approval id shown by `gatehouse approve --list`, not --latest: a request filed since could be the latest', EXIT.usage);
      const target = id ?? queue.latest()?.id;
      if (target === undefined) throw new UserError('nothing is waiting for approval');
      const decision: ApprovalDecision = flags.deny ? 'reject' : flags.always ? (scope === 'project' ? 'always-project' : 'always') : 'allow';
      const request = queue.get(target).pending;
      const r = queue.resolve(target, { decision, reason: flags.reason ?? null, principal: localPrincipal() });
      if (!r.ok) throw new UserError(r.error.message, r.error.code === 'bad_id' || r.error.code === 'bad_decision' ? EXIT.usage : EXIT.failure);
      if (flags.json) return printJson(r.value);
      process.stdout.write(`${target}: ${describeDecision(decision)} by ${r.value.principal.id}\n`);
      if (flags.always) process.stdout.write(`${safeForDisplay(describeAlways(request?.always, scope, request?.session_id))}; list or revoke with gatehouse approve --rules\n`);
    });
}

/**
 * `approve` does one thing per call: list requests, list rules, revoke a rule, or answer a
 * request. Flags of two of those together are a usage error naming both, never one silently ignored.
 */
function refuseConflictingModes(id: string | undefined, flags: { latest?: boolean; deny?: boolean; always?: boolean; reason?: string; list?: boolean; rules?: boolean; revoke?: string }): void {
  const answer = [id !== undefined ? 'an approval id' : '', flags.latest ? '--latest' : '', flags.deny ? '--deny' : '', flags.always ? '--always' : '', flags.reason !== undefined ? '--reason' : ''].filter((x) => x !== '');
  const modes = [flags.list ? ['--list'] : [], flags.rules ? ['--rules'] : [], flags.revoke !== undefined ? ['--revoke'] : [], answer].filter((m) => m.length > 0);
  if (modes.length < 2) return;
  const [a, b] = [modes[0]!.join(' '), modes[1]!.join(' ')];
  throw new UserError(`${a} and ${b} cannot be used together: list requests (--list), list rules (--rules), revoke a rule (--revoke ID), or answer a request (ID or --latest), one per call`, EXIT.usage);
}

/** `gatehouse tui`. */
export function tuiCommand(): Command {
  return new Command('tui')
    .description('a live terminal panel of pending approvals: a allow, r reject, A always (this session), P always (project), q quit')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .action(async (flags: Flags) => {
      // An interactive panel on a real terminal is not a CI log: Ink would draw nothing but the
      // last frame if it saw CI set (it reads it at import).
      if (process.stdout.isTTY) {
        delete process.env.CI;
        delete process.env.CONTINUOUS_INTEGRATION;
      }
      // Ink and React load only for this command, not for every CLI call.
      const { runTui } = await import('../../tui/index.js');
      try {
        await runTui({ projectState: projectStateFor(flags.worktree, flags.stateDir), principal: localPrincipal() });
      } catch (err) {
        throw new UserError((err as Error).message);
      }
    });
}
