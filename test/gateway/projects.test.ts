// One gateway for several projects (`serve --all`): a real server on 127.0.0.1:0 over a state base
// holding two real project folders; each request and `/ws` upgrade picks its project by key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openProject } from '../../src/gateway/projects/open-project.js';
import { ProjectPool } from '../../src/gateway/projects/project-pool.js';
import type { Gateway } from '../../src/gateway/server.js';
import { startGateway } from '../../src/gateway/server.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { writeProjectRecord } from '../../src/runtime/project-record.js';
import { projectKey } from '../../src/runtime/state-base.js';
import { tempDir } from '../support/cli.js';
import { ACCESS_TOKEN, enqueue, errorCode, OPERATOR, rawRequest } from './support.js';
import { RpcClient, UpgradeRefused } from './ws/support.js';

interface Project {
  key: string;
  root: string;
  state: string;
  queue: ApprovalQueue;
}

const gateways: Gateway[] = [];
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close();
});

/** A worktree and its state folder in the default layout of `base`, as `session start` leaves it. */
function project(base: string, name: string): Project {
  const root = join(tempDir('gh-projects-'), name);
  mkdirSync(root);
  const key = projectKey(root);
  const state = join(base, 'projects', key);
  writeProjectRecord(state, root);
  return { key, root, state, queue: new ApprovalQueue(state) };
}

async function serveAll(base: string): Promise<Gateway> {
  const gw = await startGateway({
    projectState: base,
    host: '127.0.0.1',
    port: 0,
    accessToken: ACCESS_TOKEN,
    operator: 'ana',
    tokens: [],
    log: () => {},
    projects: ({ credentials, hosts, log }) =>
      new ProjectPool({ base, log, open: (e) => openProject(e, { credentials, hosts, env: process.env, log, publicUrl: null, nodePath: process.execPath, hookBundle: 'dist/hook/hook.js' }) }),
  });
  gateways.push(gw);
  return gw;
}

const wsUrl = (gw: Gateway, query = ''): string => `${gw.url.replace('http:', 'ws:')}/ws${query}`;

describe('a gateway serving every project under a state base', () => {
  it('lists both projects with their pending approvals, to the access token only', async () => {
    const base = tempDir('gh-base-');
    const a = project(base, 'alpha');
    const b = project(base, 'beta');
    enqueue(a.queue, 'sess-a', 'rm -rf alpha');
    const gw = await serveAll(base);
    expect((await fetch(`${gw.url}/api/projects`)).status).toBe(401);
    const res = await fetch(`${gw.url}/api/projects`, { headers: OPERATOR });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { multi: boolean; projects: { key: string; name: string; worktree: string; pending_approvals: number; problem: string | null }[] };
    expect(body.multi).toBe(true);
    expect(body.projects.map((p) => [p.key, p.name, p.worktree, p.pending_approvals, p.problem]).sort()).toEqual(
      [
        [a.key, 'alpha', a.root, 1, null],
        [b.key, 'beta', b.root, 0, null],
      ].sort(),
    );
  });

  it("keeps each project's approvals to its own key: B's key neither lists nor answers A's", async () => {
    const base = tempDir('gh-base-');
    const a = project(base, 'alpha');
    const b = project(base, 'beta');
    const pending = enqueue(a.queue, 'sess-a', 'rm -rf alpha');
    const gw = await serveAll(base);
    const list = async (key: string): Promise<string[]> =>
      ((await (await fetch(`${gw.url}/approvals/queue?project=${key}`, { headers: OPERATOR })).json()) as { pending: { id: string }[] }).pending.map((p) => p.id);
    expect(await list(a.key)).toEqual([pending.id]);
    expect(await list(b.key)).toEqual([]);
    const answer = (key: string): Promise<Response> =>
      fetch(`${gw.url}/approvals/${pending.id}/resolve?project=${key}`, {
        method: 'POST',
        headers: { ...OPERATOR, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'allow', nonce: pending.nonce }),
      });
    const wrong = await answer(b.key);
    expect(wrong.status).toBe(404);
    expect(a.queue.get(pending.id).resolution).toBeNull();
    expect((await answer(a.key)).status).toBe(200);
    expect(a.queue.get(pending.id).resolution?.decision).toBe('allow');
  });

  it('says what to do for a missing, malformed or unknown key, and finds a project created after start', async () => {
    const base = tempDir('gh-base-');
    project(base, 'alpha');
    const gw = await serveAll(base);
    const missing = await fetch(`${gw.url}/approvals/queue`, { headers: OPERATOR });
    expect(missing.status).toBe(400);
    expect(await errorCode(missing)).toBe('project_required');
    const bad = await fetch(`${gw.url}/approvals/queue?project=../x`, { headers: OPERATOR });
    expect(bad.status).toBe(400);
    expect(await errorCode(bad)).toBe('bad_project');
    const unknown = await fetch(`${gw.url}/approvals/queue?project=gone-0123456789abcdef`, { headers: OPERATOR });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('GET /api/projects lists the projects');
    // Created while serving: found at its first request.
    const late = project(base, 'late');
    enqueue(late.queue, 'sess-l', 'late call');
    const found = await fetch(`${gw.url}/approvals/queue?project=${late.key}`, { headers: OPERATOR });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { pending: unknown[] }).pending).toHaveLength(1);
  });

  it('lists a project with an invalid gatehouse.yaml with its problem and does not serve it', async () => {
    const base = tempDir('gh-base-');
    const a = project(base, 'alpha');
    const broken = project(base, 'broken');
    writeFileSync(join(broken.root, 'gatehouse.yaml'), 'gate:\n  nonsense_key: 1\n');
    const gw = await serveAll(base);
    expect((await fetch(`${gw.url}/approvals/queue?project=${a.key}`, { headers: OPERATOR })).status).toBe(200);
    const refused = await fetch(`${gw.url}/approvals/queue?project=${broken.key}`, { headers: OPERATOR });
    expect(refused.status).toBe(503);
    expect(await errorCode(refused)).toBe('project_unavailable');
    const listed = ((await (await fetch(`${gw.url}/api/projects`, { headers: OPERATOR })).json()) as { projects: { key: string; problem: string | null }[] }).projects;
    expect(listed.find((p) => p.key === broken.key)?.problem).toContain('nonsense_key');
    expect(listed.find((p) => p.key === a.key)?.problem).toBeNull();
  });

  it("connects /ws?project= to that project's queue, refuses unknown keys, and keeps the Host and Origin checks", async () => {
    const base = tempDir('gh-base-');
    const a = project(base, 'alpha');
    const b = project(base, 'beta');
    const pa = enqueue(a.queue, 'sess-a', 'alpha call');
    const pb = enqueue(b.queue, 'sess-b', 'beta call');
    const gw = await serveAll(base);
    for (const [p, want] of [
      [a, pa],
      [b, pb],
    ] as const) {
      const c = await RpcClient.connect(wsUrl(gw, `?project=${p.key}`), { bearer: ACCESS_TOKEN });
      const listed = await c.ok<{ pending: { id: string; summary: string }[] }>('approvals.list');
      expect(listed.pending.map((x) => x.summary)).toEqual([want.summary]);
      // Answering the other project's call through this project's socket finds nothing to answer.
      const other = p === a ? pb : pa;
      const r = await c.call('approvals.resolve', { id: other.id, decision: 'allow', nonce: other.nonce });
      expect(r.error).toBeDefined();
      c.close();
    }
    expect(b.queue.get(pb.id).resolution).toBeNull();
    const refusedWith = async (query: string, headers: Record<string, string> = {}, bearer = ACCESS_TOKEN): Promise<number> => {
      try {
        (await RpcClient.connect(wsUrl(gw, query), { bearer, headers })).close();
        return 101;
      } catch (err) {
        if (err instanceof UpgradeRefused) return err.status;
        throw err;
      }
    };
    expect(await refusedWith('')).toBe(400);
    expect(await refusedWith('?project=gone-0123456789abcdef')).toBe(404);
    expect(await refusedWith(`?project=${a.key}`, { origin: 'http://evil.example' })).toBe(403);
    const port = Number(new URL(gw.url).port);
    const rebound = await rawRequest(port, {
      path: `/ws?project=${a.key}`,
      headers: { host: `evil.example:${port}`, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    expect(rebound.status).toBe(403);
    expect(await refusedWith(`?project=${a.key}`, {}, 'wrong-token-0123456789abcdef')).toBe(401);
  });
});
