// The team dashboard's routes on a real gateway over a real PostgreSQL store: auth as for one project,
// a store that cannot be reached is a 503 that says so, and a resolve is passed to the team approval
// queue with the caller's principal, its 409/410 (with the winner) passed back as they come.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTeamRoutes } from '../../src/gateway/team-routes.js';
import { openStore, type PgStore } from '../../src/runtime/store/pg-connect.js';
import type { TeamPendingApproval } from '../../src/runtime/store/team-approvals.js';
import { teamApprovalsOn } from '../../src/runtime/store/team-approvals-pg.js';
import { insertRequest } from '../../src/runtime/store/pg-approval-rows.js';
import { newApprovalId, newNonce } from '../../src/runtime/approvals/record.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { OPERATOR, startHarness, type Harness } from './support.js';

let server: TestPostgres;
let store: PgStore;
let h: Harness;
let up = true;
/** One request a machine filed, in the real team queue. */
const AP = newApprovalId(new Date());
const NONCE = newNonce();

beforeAll(async () => {
  server = await startPostgres();
  const opened = await openStore({ kind: 'postgres', url: server.url, passwordEnv: server.passwordEnv });
  if (!opened.ok) throw new Error(opened.reason);
  store = opened.value;
  h = await startHarness({
    routes: (router) =>
      addTeamRoutes(router, { label: store.label, machineId: 'm-0000000000000000', store: () => (up ? store : null), approvals: teamApprovalsOn(() => (up ? store : null), store.label) }),
  });
  const now = Date.now();
  await insertRequest(
    store.pool,
    {
      id: AP,
      nonce: NONCE,
      session_id: 's-1',
      agent: 'claude',
      tool: 'Bash',
      summary: 'rm -rf build',
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 600_000).toISOString(),
      pid: 1,
      waiter: 'w-0000000000000000',
    },
    { id: 'm-1111111111111111', host: 'ci-7', user: 'build' },
    'app-0',
  );
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
    expect((await post(AP, { decision: 'allow', nonce: NONCE }, {})).status).toBe(401);
  });

  it('passes a resolve to the team queue as the caller, then 409 for a stale nonce and 410 with the winner', async () => {
    const listed = (await (await fetch(`${h.gw.url}/api/team/approvals`, { headers: OPERATOR })).json()) as { wired: boolean; pending: TeamPendingApproval[] };
    expect(listed.wired).toBe(true);
    expect(listed.pending.map((p) => p.id)).toEqual([AP]);
    expect((await post(AP, { decision: 'allow', nonce: 'wrong' })).status).toBe(409);
    const won = await post(AP, { decision: 'deny', nonce: NONCE });
    expect(won.status).toBe(200);
    expect(((await won.json()) as { resolution: { resolved_by: string } }).resolution.resolved_by).toBe('dashboard-operator:ana');
    const late = await post(AP, { decision: 'allow', nonce: NONCE });
    expect(late.status).toBe(410);
    expect(((await late.json()) as { winner: { decided_by: string; decision: string } }).winner).toMatchObject({ decided_by: 'dashboard-operator:ana', decision: 'deny' });
    expect((await post(AP, { decision: 'always', nonce: NONCE })).status).toBe(400);
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
