// The always-allow rules in force: each with its id, tool, exact match, lifetime and who made it,
// and a Revoke button for those made by answers (config rules say to edit the config instead).
import { describeLifetime } from '../core/approvals/always-scope.js';
import { h } from './dom.js';
import type { RpcClient } from './rpc-client.js';
import type { ListedRule } from './wire.js';

/** A rule's matcher as a person reads it: `exact "src/a.ts"`. */
function describeMatch(match: ListedRule['match']): string {
  const [kind, value] = Object.entries(match)[0] as [string, string];
  return `${kind} ${JSON.stringify(value)}`;
}

/**
 * Lists the rules (`approvals.rules`) and revokes one (`approvals.revoke_rule`) over the WebSocket.
 * @example const rv = new RulesView(ul, status, rpc); await rv.refresh()
 */
export class RulesView {
  readonly #list: HTMLElement;
  readonly #status: HTMLElement;
  readonly #rpc: RpcClient;

  constructor(list: HTMLElement, status: HTMLElement, rpc: RpcClient) {
    this.#list = list;
    this.#status = status;
    this.#rpc = rpc;
  }

  /** Reloads the list; a failure is shown in the status line, never thrown. */
  async refresh(): Promise<void> {
    try {
      const res = await this.#rpc.call<{ rules: ListedRule[] }>('approvals.rules');
      this.#show(res.rules);
    } catch (err) {
      this.#status.textContent = `Cannot list the rules: ${(err as Error).message}`;
    }
  }

  #show(rules: readonly ListedRule[]): void {
    if (rules.length === 0) {
      this.#list.replaceChildren(h('li', { class: 'empty' }, 'No always-allow rules: calls not otherwise allowed are asked about.'));
      return;
    }
    this.#list.replaceChildren(...rules.map((r) => this.#row(r)));
  }

  #row(r: ListedRule): HTMLElement {
    const origin =
      r.origin === 'config' ? 'from the config: edit approvals.always_allow there to remove it' : `by ${r.created_by ?? 'an earlier Gatehouse'}${r.created_at ? ` at ${r.created_at}` : ''}`;
    const row = h(
      'li',
      { class: 'rule', 'data-rule-id': r.id, 'data-origin': r.origin },
      h('div', { class: 'rule-head' }, h('strong', {}, r.tool), h('code', { class: 'rule-match' }, describeMatch(r.match))),
      h('div', { class: 'rule-meta' }, `${describeLifetime(r.scope, r.session_id)} · ${origin} · ${r.id}`),
    );
    if (r.revocable) {
      const button = h('button', { type: 'button', class: 'revoke', title: `Revoke ${r.id}: these calls are asked about again` }, 'Revoke');
      button.addEventListener('click', () => void this.#revoke(r.id, button));
      row.append(button);
    }
    return row;
  }

  async #revoke(id: string, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    this.#status.textContent = '';
    try {
      const res = await this.#rpc.call<{ revoked: ListedRule; revoked_by: string }>('approvals.revoke_rule', { id });
      this.#status.textContent = `Revoked ${res.revoked.id} as ${res.revoked_by}: those calls are asked about again.`;
    } catch (err) {
      this.#status.textContent = (err as Error).message;
    }
    await this.refresh();
  }
}
