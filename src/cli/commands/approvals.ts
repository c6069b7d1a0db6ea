// `gatehouse approve`, `gatehouse serve` and `gatehouse tui`: the three surfaces that
// resolve the one approval queue, each naming who decided.
import { Command } from 'commander';
import { ALWAYS_SCOPES, describeAlways, describeDecision, describeLifetime, type AlwaysScope } from '../../core/approvals/always-scope.js';
import { osUserPrincipal, type Principal } from '../../core/approvals/principal.js';
import type { ApprovalDetail } from '../../core/approvals/detail.js';
import { framed, safeForDisplay } from '../../core/display.js';
import { ApprovalQueue, type ApprovalDecision, type PendingApproval } from '../../runtime/approvals/index.js';
import { osUserName } from '../../runtime/recorder.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson, projectStateFor } from '../context.js';

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
    .option('--latest', 'the most recent pending approval: shown, and allowed only once you confirm it at the terminal (--deny needs no confirmation; not with --always)')
    .option('--nonce <hex>', 'the nonce `--list` showed with the id: refused if the request is no longer the one listed')
    .option('--show <id>', 'print one pending request whole: the call, why you are asked, and what --always would allow')
    .option('--deny', 'reject instead of allowing')
    .option('--always', 'allow, and allow exactly this call again (see --list for what the rule covers)')
    .option('--scope <scope>', 'with --always: session (default: this session only) or project (every later session too, until revoked)', 'session')
    .option('--reason <text>', 'reason (the agent sees it on a rejection)')
    .option('--list', 'list pending approvals instead, each with what --always would allow')
    .option('--rules', 'list the always-allow rules in force (ids, scope, who made them)')
    .option('--revoke <rule-id>', 'revoke an always-allow rule made by an answer (ar-…)')
    .option('--store [url]', "the team's queue in PostgreSQL (postgres://user@host/db?password_env=NAME; no URL: the project's store: setting) instead of this machine's, with --list, --show or an id")
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print as JSON')
    .addHelpText(
      'after',
      '\n--always adds a rule for exactly this call: the same file paths (whatever is written to them), the same whole command, or the same input.' +
        '\nIt lasts for this session only unless you pass --scope project. It needs the id from --list, never --latest.' +
        '\n--latest shows the newest request and asks before allowing it; with no terminal to ask at, give its id.' +
        "\n--store lists and answers every machine's requests in the team store; the waiting machine's relay passes the answer on (docs/teams.md)." +
        '\n\nExit status: 0 resolved (or listed, shown, or revoked), 1 not found / already resolved / nonce mismatch / unknown rule / not confirmed, 2 usage (--latest with no terminal to confirm at included).',
    )
    .action(async (id: string | undefined, flags: ApproveFlags) => {
      const worktree = flags.worktree ?? '.';
      refuseConflictingModes(id, flags);
      if (flags.store !== undefined) return approveInStore(id, { ...flags, store: flags.store }, worktree);
      const state = projectStateFor(flags.worktree, flags.stateDir);
      // The rules read the project's config: its parser is loaded only for them.
      if (flags.rules) return (await import('./approve-rules.js')).printRules(state, worktree, flags.json === true);
      if (flags.revoke !== undefined) return (await import('./approve-rules.js')).revokeRule(state, worktree, flags.revoke, localPrincipal(), flags.json === true);
      const scope = scopeOf(flags);
      const queue = new ApprovalQueue(state);
      // Deny what dead hook processes left waiting, so the list shows only live requests.
      queue.sweep();
      if (flags.list) {
        const pending = queue.list();
        if (flags.json) return printJson(pending);
        if (pending.length === 0) return void process.stdout.write('nothing is waiting for approval\n');
        // The whole summary, never cut (the terminal wraps it); records are files, so make them safe to print.
        for (const p of pending) process.stdout.write(describeRequest(p));
        return;
      }
      if (flags.show !== undefined) {
        const shown = queue.get(flags.show);
        if (shown.problem?.code === 'bad_id') throw new UserError(shown.problem.message, EXIT.usage);
        if (shown.problem !== null) throw new UserError(shown.problem.message);
        // An answered request keeps its file for a while: it is shown as answered, never as open.
        const r = shown.resolution;
        if (r !== null)
          throw new UserError(
            `approval ${flags.show} is already resolved (${r.expired ? 'it timed out' : `answered ${describeDecision(r.decision)} by ${safeForDisplay(r.principal.id)} at ${r.resolved_at}`}); nothing to answer`,
          );
        if (shown.pending === null) throw new UserError(`no pending approval ${flags.show}: run \`gatehouse approve --list\` to see open requests`);
        if (Date.parse(shown.pending.expires_at) <= Date.now()) throw new UserError(`approval ${flags.show} expired at ${shown.pending.expires_at}; nothing to answer`);
        if (flags.json) return printJson(shown.pending);
        return void process.stdout.write(describeRequest(shown.pending, true));
      }
      const decision = decisionOf(flags, scope);
      if (id === undefined && flags.latest !== true) throw new UserError('give an approval id or --latest (or --list to see what is waiting)', EXIT.usage);
      if (id !== undefined && flags.latest === true) throw new UserError('give an approval id or --latest, not both', EXIT.usage);
      // The agent can file a request between the operator's --list and this command, so a
      // rule made from --latest could cover a call no one saw.
      if (flags.latest && flags.always) throw new UserError('--always needs the approval id shown by `gatehouse approve --list`, not --latest: a request filed since could be the latest', EXIT.usage);
      const target = id ?? queue.latest()?.id;
      if (target === undefined) throw new UserError('nothing is waiting for approval');
      const request = queue.get(target).pending;
      // The newest request when this runs may not be the one the person listed (an agent can
      // file one in between): it is shown, and allowed only once confirmed. Denying needs no care.
      let nonce = flags.nonce;
      if (flags.latest && decision === 'allow' && request !== null) {
        await confirmLatest(request);
        nonce = request.nonce;
      }
      const r = queue.resolve(target, { decision, reason: flags.reason ?? null, principal: localPrincipal(), ...(nonce !== undefined ? { nonce } : {}) });
      if (!r.ok) throw new UserError(r.error.message, r.error.code === 'bad_id' || r.error.code === 'bad_decision' ? EXIT.usage : EXIT.failure);
      if (flags.json) return printJson(r.value);
      process.stdout.write(`${target}: ${describeDecision(decision)} by ${r.value.principal.id}\n`);
      if (flags.always) process.stdout.write(`${safeForDisplay(describeAlways(request?.always, scope, request?.session_id))}; list or revoke with gatehouse approve --rules\n`);
    });
}

/** The options of `gatehouse approve`. */
type ApproveFlags = Flags & {
  latest?: boolean;
  nonce?: string;
  show?: string;
  deny?: boolean;
  always?: boolean;
  scope: string;
  reason?: string;
  list?: boolean;
  rules?: boolean;
  revoke?: string;
  store?: string | true;
};

/** `--scope`, checked: a usage error for another word, or for `project` without `--always`. */
function scopeOf(flags: ApproveFlags): AlwaysScope {
  if (!ALWAYS_SCOPES.includes(flags.scope as AlwaysScope)) throw new UserError(`--scope must be session or project, got ${JSON.stringify(flags.scope)}`, EXIT.usage);
  if (flags.scope === 'project' && !flags.always) throw new UserError('--scope project widens an --always rule; add --always, or leave --scope out', EXIT.usage);
  return flags.scope as AlwaysScope;
}

/** The answer the flags give: deny, allow, or always (this session or the project). */
function decisionOf(flags: ApproveFlags, scope: AlwaysScope): ApprovalDecision {
  if (flags.deny && flags.always) throw new UserError('--deny and --always contradict each other; pick one', EXIT.usage);
  return flags.deny ? 'reject' : flags.always ? (scope === 'project' ? 'always-project' : 'always') : 'allow';
}

/** `approve --store`: list, show or answer in the team store; local-only modes are refused by name. */
async function approveInStore(id: string | undefined, flags: ApproveFlags & { store: string | true }, worktree: string): Promise<void> {
  const local = flags.rules ? '--rules' : flags.revoke !== undefined ? '--revoke' : flags.latest ? '--latest' : null;
  if (local !== null) throw new UserError(`${local} works on this machine's queue only; with --store, list (--list), show (--show ID) or answer by id (ID --nonce HEX)`, EXIT.usage);
  const json = flags.json === true;
  // The team store's client and the config parser, loaded only for --store.
  const { runStoreAction } = await import('./approve-store.js');
  if (flags.list) return runStoreAction(flags.store, worktree, { kind: 'list' }, json, describeRequest);
  if (flags.show !== undefined) return runStoreAction(flags.store, worktree, { kind: 'show', id: flags.show }, json, describeRequest);
  if (id === undefined) throw new UserError('give an approval id (or --list to see what is waiting)', EXIT.usage);
  const decision = decisionOf(flags, scopeOf(flags));
  return runStoreAction(flags.store, worktree, { kind: 'resolve', id, decision, reason: flags.reason ?? null, nonce: flags.nonce, principal: localPrincipal() }, json, describeRequest);
}

/** One request as a person reads it: the id and nonce to answer it by, the whole call, why they are asked, what --always would allow. */
function describeRequest(p: Omit<PendingApproval, 'pid' | 'waiter'>, withDetail = false): string {
  const wider = p.always ? `; --always --scope project: the same, ${describeLifetime('project')}` : '';
  return [
    `${p.id}  ${safeForDisplay(p.tool).padEnd(10)} ${secondsLeft(p.expires_at)}s left  session ${safeForDisplay(p.session_id)}  ${safeForDisplay(p.summary)}`,
    ...(p.why !== undefined ? [`    why you: ${safeForDisplay(p.why)}`] : []),
    ...(withDetail && p.detail !== undefined ? detailLines(p.detail) : []),
    `    --always: ${safeForDisplay(describeAlways(p.always, 'session', p.session_id))}${wider}`,
    `    answer it: gatehouse approve ${p.id} --nonce ${p.nonce}`,
    '',
  ].join('\n');
}

/** The request's detail as the dashboard card shows it, every line framed so none can pass for ours. */
function detailLines(d: ApprovalDetail): string[] {
  const frame = (text: string): string[] => (text === '' ? [] : [framed(text.replace(/\n$/, ''), '    │ ')]);
  if (d.kind === 'shell') {
    return [
      '    command:',
      ...frame(d.command),
      ...(d.description === null ? [] : [`    agent says: ${safeForDisplay(d.description)}`]),
      `    folder: ${safeForDisplay(d.cwd)}`,
      `    rule: ${safeForDisplay(d.rule)}`,
    ];
  }
  if (d.kind === 'input') return ['    input:', ...frame(d.json), ...(d.truncated ? ['    (the input is longer than a card keeps: the rest is not shown)'] : [])];
  return [
    ...d.files.flatMap((f) => [`    diff of ${safeForDisplay(f.path)} (+${f.added} −${f.removed})${f.note === null ? '' : `: ${safeForDisplay(f.note)}`}`, ...frame(f.diff)]),
    ...(d.truncated ? ['    (the diff is longer than a card keeps: the rest is not shown)'] : []),
  ];
}

/**
 * Shows the newest request and asks at the terminal before allowing it; refuses when there is
 * no terminal to ask at (exit 2: answer by id instead) or the answer is not yes (exit 1).
 */
async function confirmLatest(p: PendingApproval): Promise<void> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new UserError(
      `--latest allows whatever is newest when it runs, which may not be what you listed, so it asks first, and there is no terminal to ask at: answer by id (gatehouse approve ${p.id} --nonce ${p.nonce}) after checking it with gatehouse approve --show ${p.id}`,
      EXIT.usage,
    );
  }
  process.stderr.write(`The newest request:\n${describeRequest(p, true)}`);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`Allow ${p.id}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new UserError(`${p.id} left waiting: not confirmed`);
  } finally {
    rl.close();
  }
}

/**
 * `approve` does one thing per call: list requests, list rules, revoke a rule, or answer a
 * request. Flags of two of those together are a usage error naming both, never one silently ignored.
 */
function refuseConflictingModes(
  id: string | undefined,
  flags: { latest?: boolean; nonce?: string; show?: string; deny?: boolean; always?: boolean; reason?: string; list?: boolean; rules?: boolean; revoke?: string },
): void {
  const answer = [
    id !== undefined ? 'an approval id' : '',
    flags.latest ? '--latest' : '',
    flags.nonce !== undefined ? '--nonce' : '',
    flags.deny ? '--deny' : '',
    flags.always ? '--always' : '',
    flags.reason !== undefined ? '--reason' : '',
  ].filter((x) => x !== '');
  const modes = [flags.list ? ['--list'] : [], flags.show !== undefined ? ['--show'] : [], flags.rules ? ['--rules'] : [], flags.revoke !== undefined ? ['--revoke'] : [], answer].filter(
    (m) => m.length > 0,
  );
  if (modes.length < 2) return;
  const [a, b] = [modes[0]!.join(' '), modes[1]!.join(' ')];
  throw new UserError(
    `${a} and ${b} cannot be used together: list requests (--list), show one (--show ID), list rules (--rules), revoke a rule (--revoke ID), or answer a request (ID or --latest), one per call`,
    EXIT.usage,
  );
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
