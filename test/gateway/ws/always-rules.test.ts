// Always-allow rules over the WebSocket: listed with their scope and origin, revoked as the
// connection's principal (recorded), config rules refused with what to do, read-only tokens refused.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { osUserPrincipal } from '../../../src/core/approvals/principal.js';
import { addStoredRules, configRuleId, type ListedRule } from '../../../src/runtime/approvals/always-rules.js';
import { RPC_ERRORS } from '../../../src/gateway/ws/index.js';
import { verifyProjectAudit } from '../../support/audit.js';
import { SECRET, sha256Hex } from '../support.js';
import type { WsHarness } from './support.js';
import { operator, RpcClient, startWsHarness } from './support.js';

let h: WsHarness | undefined;
const clients: RpcClient[] = [];
const configRule = { tool: 'Bash', match: { exact: 'npm test' } };

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

function addEditRule(state: string): string {
  const ana = osUserPrincipal('ana');
  if (!ana.ok) throw new Error(ana.reason);
  const [rule] = addStoredRules(state, { rules: [{ tool: 'Edit', match: { exact: 'src/a.ts' } }], scope: 'project', session_id: 'sess-1', principal: ana.value, approval_id: 'ap-1' });
  return rule!.id;
}

describe('always-allow rules over the WebSocket', () => {
  it('lists answered and config rules, and revokes an answered one as dashboard-operator:<who>, recorded', async () => {
    h = await startWsHarness({ configRules: [configRule] });
    const id = addEditRule(h.state);
    const c = await operator(h, []);
    clients.push(c);
    const { rules } = await c.ok<{ rules: ListedRule[] }>('approvals.rules');
    expect(rules.map((r) => [r.id, r.tool, r.scope, r.origin, r.revocable, r.created_by])).toEqual([
      [id, 'Edit', 'project', 'approval', true, 'os-user:ana'],
      [configRuleId(configRule), 'Bash', 'project', 'config', false, null],
    ]);
    const done = await c.ok<{ revoked: ListedRule; revoked_by: string }>('approvals.revoke_rule', { id });
    expect(done).toMatchObject({ revoked: { id }, revoked_by: 'dashboard-operator:ana' });
    expect((await c.ok<{ rules: ListedRule[] }>('approvals.rules')).rules.map((r) => r.origin)).toEqual(['config']);
    const events = readFileSync(join(h.state, 'audit', 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; actor: string; data: Record<string, unknown> });
    expect(events.filter((e) => e.type === 'always_allow_revoked')).toEqual([
      expect.objectContaining({ actor: 'dashboard-operator:ana', data: expect.objectContaining({ rule_id: id, auth: 'access-token' }) }),
    ]);
    expect(verifyProjectAudit(h.state).ok).toBe(true);
  });

  it('refuses to revoke a config rule or an unknown id, saying what to do', async () => {
    h = await startWsHarness({ configRules: [configRule] });
    const c = await operator(h, []);
    clients.push(c);
    const fromConfig = await c.call('approvals.revoke_rule', { id: configRuleId(configRule) });
    expect(fromConfig.error).toMatchObject({ code: RPC_ERRORS.revoke_refused.code, message: expect.stringMatching(/comes from the project config.*remove it there/) });
    const unknown = await c.call('approvals.revoke_rule', { id: 'ar-0000000000000000' });
    expect(unknown.error?.message).toMatch(/no always-allow rule ar-0000000000000000 .*gatehouse approve --rules/);
  });

  it('lets a read-only scoped token list rules but not revoke them, and refuses a connection without a token', async () => {
    h = await startWsHarness({ tokens: [{ principal: 'ci', scopes: ['approvals:read'], sha256: sha256Hex(SECRET) }] });
    const id = addEditRule(h.state);
    const c = await RpcClient.connect(h.url, { bearer: SECRET });
    clients.push(c);
    expect((await c.ok<{ rules: ListedRule[] }>('approvals.rules')).rules.map((r) => r.id)).toEqual([id]);
    expect((await c.call('approvals.revoke_rule', { id })).error?.code).toBe(RPC_ERRORS.forbidden.code);
    const anonymous = await RpcClient.connect(h.url, {});
    clients.push(anonymous);
    expect((await anonymous.call('approvals.rules')).error?.code).toBe(RPC_ERRORS.unauthorized.code);
  });
});
