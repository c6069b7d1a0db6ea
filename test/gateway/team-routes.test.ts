// The team dashboard's routes on a real gateway over a real PostgreSQL store: auth as for one project,
// a store that cannot be reached is a 503 that says so, and a resolve is passed to the team approval
// queue with the caller's principal, its 409/410 (with the winner) passed back as they come.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/approvals/principal.js';
import { addTeamRoutes } from '../../src/gateway/team-routes.js';
import { openStore, type PgStore } from '../../src/runtime/store/pg-connect.js';
import type { TeamApprovals, TeamDecision, TeamPendingApproval, TeamResolveOutcome } from '../../src/runtime/store/team-approvals.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { OPERATOR, startHarness, type Harness } from './support.js';

/**
 * The smallest queue that keeps the contract the routes rely on (first resolve wins, a wrong nonce is
 * 409, a second resolve 410 naming the winner); the PostgreSQL queue is built and tested beside this.
 */
class ContractQueue implements TeamApprovals {
  readonly pending = new Map<string, TeamPendingApproval>();
  readonly done = new Map<string, { decided_by: string; decision: string; at: string }>();
  listPending(): Promise<TeamPendingApproval[]> {
    return Promise.resolve([...this.pending.values()]);
  }
  resolve(id: string, decision: TeamDecision, principal: Principal, nonce: string): Promise<TeamResolveOutcome> {
    const winner = this.done.get(id);
    if (winner !== undefined) return Promise.resolve({ ok: false, status: 410, code: 'already_resolved', message: 'already answered', winner });
    const p = this.pending.get(id);
    if (p === undefined) return Promise.resolve({ ok: false, status: 404, code: 'not_found', message: 'no such approval', winner: null });
    if (p.nonce !== nonce) return Promise.resolve({ ok: false, status: 409, code: 'nonce_mismatch', message: 'stale nonce', winner: null });
    this.pending.delete(id);
    this.done.set(id, { decided_by: principal.id, decision, at: new Date().toISOString() });
    return Promise.resolve({ ok: true, resolved_by: principal.id, decision });
  }
}

let server: TestPostgres;
let store: PgStore;
let h: Harness;
let up = true;
const queue = new ContractQueue();

beforeAll(async () => {
  server = await startPostgres();
  const opened = await openStore({ kind: 'postgres', url: server.url, passwordEnv: server.passwordEnv });
  if (!opened.ok) throw new Error(opened.reason);
  store = opened.value;
  h = await startHarness({ routes: (router) => addTeamRoutes(router, { label: store.label, machineId: 'm-0000000000000000', store: () => (up ? store : null), approvals: queue }) });
  queue.pending.set('ap-1', {
    id: 'ap-1',
    nonce: 'n-1',
    machine_id: 'm-1111111111111111',
    host: 'ci-7',
    user: 'build',
    project_key: 'app-0',
    session_id: 's-1',
    tool: 'Bash',
    summary: 'rm -rf build',
    created_at: '',
    expires_at: null,
  });
});

afterAll(async () => {
  await h?.gw.close();
  await store?.close();
  server?.destroy();
});

const post = (id: string, body: unknown, headers: Record<string, string> = OPERATOR): Promise<Response> =>
  fetch(`${h.gw.url}/api/team/approvals/${id}/resolve`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('team routes', { timeout: 30_000 }, () => {
  it('lists an empty registry, and refuses callers without the access token', async () => {
    const res = await fetch(`${h.gw.url}/api/team/sessions`, { headers: OPERATOR });
    expect(await res.json()).toEqual({ store: store.label, machine_id: 'm-0000000000000000', sessions: [], omitted: 0 });
    expect((await fetch(`${h.gw.url}/api/team/sessions`)).status).toBe(401);
    expect((await post('ap-1', { decision: 'allow', nonce: 'n-1' }, {})).status).toBe(401);
  });

  it('passes a resolve to the team queue as the caller, then 409 for a stale nonce and 410 with the winner', async () => {
    const listed = (await (await fetch(`${h.gw.url}/api/team/approvals`, { headers: OPERATOR })).json()) as { wired: boolean; pending: TeamPendingApproval[] };
    expect(listed.wired).toBe(true);
    expect(listed.pending.map((p) => p.id)).toEqual(['ap-1']);
    expect((await post('ap-1', { decision: 'allow', nonce: 'wrong' })).status).toBe(409);
    const won = await post('ap-1', { decision: 'deny', nonce: 'n-1' });
    expect(won.status).toBe(200);
    expect(((await won.json()) as { resolution: { resolved_by: string } }).resolution.resolved_by).toBe('dashboard-operator:ana');
    const late = await post('ap-1', { decision: 'allow', nonce: 'n-1' });
    expect(late.status).toBe(410);
    expect(((await late.json()) as { winner: { decided_by: string; decision: string } }).winner).toMatchObject({ decided_by: 'dashboard-operator:ana', decision: 'deny' });
    expect((await post('ap-1', { decision: 'always', nonce: 'n-1' })).status).toBe(400);
  });

  it('says the store cannot be reached (503) instead of failing, and a bad evidence id is a 400', async () => {
    expect((await fetch(`${h.gw.url}/api/team/evidence/nope`, { headers: OPERATOR })).status).toBe(400);
    expect((await fetch(`${h.gw.url}/api/team/evidence/ev-20250101T000000Z-0123456789abcdef`, { headers: OPERATOR })).status).toBe(404);
    up = false;
    try {
      const res = await fetch(`${h.gw.url}/api/team/sessions`, { headers: OPERATOR });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('store_unreachable');
    } finally {
      up = true;
    }
    server.kill();
    try {
      expect((await fetch(`${h.gw.url}/api/team/sessions`, { headers: OPERATOR })).status).toBe(503);
    } finally {
      server.start();
    }
  });
});
