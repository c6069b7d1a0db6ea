// `gatehouse approve --store`: the team's approval queue in PostgreSQL, listed and answered from
// any machine. The answer reaches the waiting hook through its machine's relay.
import { describeDecision } from '../../core/approvals/always-scope.js';
import type { Principal } from '../../core/approvals/principal.js';
import { safeForDisplay } from '../../core/display.js';
import type { ApprovalDecision, PendingApproval } from '../../runtime/approvals/index.js';
import { loadConfig } from '../../runtime/config.js';
import { openStore } from '../../runtime/store/pg-connect.js';
import { PgApprovalQueue } from '../../runtime/store/pg-approval-queue.js';
import type { StoreRequest } from '../../runtime/store/pg-approval-rows.js';
import { parseStoreSetting, selectStore, type PostgresSpec } from '../../runtime/store/store-setting.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson } from '../context.js';

/** What `approve --store` was asked to do. */
export type StoreAction =
  { kind: 'list' } | { kind: 'show'; id: string } | { kind: 'resolve'; id: string; decision: ApprovalDecision; reason: string | null; nonce: string | undefined; principal: Principal };

/**
 * The store `--store` names: its URL, or with no URL the project's `store:` (else GATEHOUSE_STORE),
 * which must then be a PostgreSQL one.
 */
function storeSpec(value: string | true, worktree: string): PostgresSpec {
  if (value !== true) {
    const spec = parseStoreSetting(value, '--store');
    if (!spec.ok) throw new UserError(spec.reason, EXIT.usage);
    if (spec.value.kind !== 'postgres') throw new UserError('--store names the team store: give a postgres:// URL, or leave the value out to use the project’s store: setting', EXIT.usage);
    return spec.value;
  }
  const config = loadConfig({ root: worktree });
  if (!config.ok) throw new UserError(`${config.reason}; fix the config, or give the store's URL: --store postgres://…`);
  const spec = selectStore(config.value.store, process.env);
  if (!spec.ok) throw new UserError(spec.reason, EXIT.usage);
  if (spec.value.kind !== 'postgres') throw new UserError('this project uses the file store (no store: setting and no GATEHOUSE_STORE); give the team store: --store postgres://…', EXIT.usage);
  return spec.value;
}

/** Runs `action` against the team store; `describe` prints a request as `approve --list` does. */
export async function runStoreAction(
  value: string | true,
  worktree: string,
  action: StoreAction,
  json: boolean,
  describe: (p: Omit<PendingApproval, 'pid' | 'waiter'>, whole: boolean) => string,
): Promise<void> {
  const opened = await openStore(storeSpec(value, worktree), { max: 1 });
  if (!opened.ok) throw new UserError(opened.reason.replace(/; to run on this machine's own store instead, pass --store-fallback file\./, '.'));
  const store = opened.value;
  const queue = new PgApprovalQueue(store);
  try {
    if (action.kind === 'list') {
      const pending = await queue.list();
      if (json) return printJson(pending);
      if (pending.length === 0) return void process.stdout.write(`nothing is waiting for approval in ${store.label}\n`);
      for (const p of pending) process.stdout.write(`${where(p)}\n${describe(p, false).replace(/gatehouse approve (\S+) --nonce (\S+)/, 'gatehouse approve $1 --nonce $2 --store')}`);
      return;
    }
    if (action.kind === 'show') {
      const found = await queue.get(action.id);
      if (found === null) throw new UserError(`no approval ${action.id} in ${store.label}: run \`gatehouse approve --list --store\` to see open requests`);
      const r = found.resolution;
      if (r !== null)
        throw new UserError(
          `approval ${action.id} is already resolved (${r.expired ? 'it timed out' : `answered ${describeDecision(r.decision)} by ${safeForDisplay(r.principal.id)} at ${r.resolved_at}`}); nothing to answer`,
        );
      if (json) return printJson(found.request);
      return void process.stdout.write(`${where(found.request)}\n${describe(found.request, true)}`);
    }
    const r = await queue.resolve(action.id, { decision: action.decision, reason: action.reason, principal: action.principal, ...(action.nonce === undefined ? {} : { nonce: action.nonce }) });
    if (!r.ok) throw new UserError(r.error.message, r.error.code === 'bad_id' || r.error.code === 'bad_decision' ? EXIT.usage : EXIT.failure);
    if (json) return printJson(r.value);
    process.stdout.write(`${action.id}: ${describeDecision(action.decision)} by ${r.value.principal.id} (in ${store.label}; the machine's relay passes it to the waiting agent)\n`);
  } finally {
    await store.close();
  }
}

/** The machine and project a request came from, as one line. */
function where(p: StoreRequest): string {
  return `machine ${safeForDisplay(p.machine.host)} (${p.machine.id}, user ${safeForDisplay(p.machine.user)})  project ${safeForDisplay(p.project_key)}`;
}
