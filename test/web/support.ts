// A real gateway for the browser test: the HTTP router with the dashboard, audit and doctor routes,
// the `/ws` endpoint and a PTY manager over a temp project, on 127.0.0.1 port 0.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { chromium } from 'playwright-core';
import { addAuditRoutes } from '../../src/gateway/audit-routes.js';
import { addDoctorRoutes } from '../../src/gateway/doctor-routes.js';
import { authenticate } from '../../src/gateway/auth.js';
import type { AlwaysAllowRule } from '../../src/core/approvals/always-allow.js';
import { isAllowedHost, isAllowedOrigin } from '../../src/gateway/host-origin.js';
import type { HostPolicy } from '../../src/gateway/host-origin.js';
import { errorReply, sendReply } from '../../src/gateway/http-io.js';
import { Credentials } from '../../src/gateway/credentials.js';
import { PtyManager } from '../../src/gateway/pty/index.js';
import { Router, splitTarget } from '../../src/gateway/router.js';
import { addWebRoutes } from '../../src/gateway/web-routes.js';
import type { WebSocketEndpoint } from '../../src/gateway/ws/index.js';
import { attachWebSocket } from '../../src/gateway/ws/index.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';

/** Debian's Chromium, as `.ci/run` installs it. */
export const CHROMIUM = '/usr/bin/chromium';

/** Chromium flags for a quiet, headless run in a container. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Opens Chromium with its own profile folder (cookies and localStorage live there, across reloads). */
export function launchChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 760 }, args: CHROMIUM_ARGS });
}

/** How long a browser test waits for the page to show something. */
export const WAIT_MS = 20_000;

/** Polls `probe` from here until it holds (the page's CSP forbids the evaluated predicates of waitForFunction). */
export async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A running dashboard server. */
export interface DashboardServer {
  url: string;
  accessToken: string;
  /** The project state folder whose approvals queue the page answers. */
  state: string;
  manager: PtyManager;
  /** Closes every WebSocket (1001, as at shutdown) and serves `/ws` afresh; PTYs keep running. */
  restartWebSocket(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the gateway pieces the dashboard talks to. The Host and Origin checks and the
 * credential check of scoped routes are the server's (see src/gateway/server.ts), applied
 * here the same way before routing.
 */
export async function startDashboardServer(opts: { webDir: string; project: string; configRules?: AlwaysAllowRule[] }): Promise<DashboardServer> {
  const accessToken = randomBytes(32).toString('hex');
  const state = join(opts.project, '.state');
  const hosts: HostPolicy = { port: 0, bindHost: '127.0.0.1', extra: [] };
  const router = addDoctorRoutes(addAuditRoutes(addWebRoutes(new Router(), { webDir: opts.webDir, accessToken }), state), state);
  // A server of one project, as `GET /api/projects` tells the page (which then hides its project switcher).
  router.add({ method: 'GET', path: '/api/projects', scope: 'approvals:read', handle: () => ({ status: 200, body: { multi: false, projects: [] } }) });
  const credentials = new Credentials(accessToken, { id: 'dashboard-operator:ana', auth: 'access-token' }, []);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const { host, origin } = req.headers;
    if (!isAllowedHost(host, hosts) || !isAllowedOrigin(origin, host, hosts.port)) {
      sendReply(res, errorReply(403, 'bad_host', 'refused'));
      return;
    }
    const target = splitTarget(req.url ?? '');
    const match = target === null ? null : router.match(req.method ?? '', target.segments);
    if (target === null || match === null || match.kind !== 'found') {
      sendReply(res, errorReply(404, 'not_found', 'no such endpoint'));
      return;
    }
    const who = match.route.scope === undefined ? null : authenticate(req, match.route.scope, credentials);
    if (who !== null && !who.ok) {
      sendReply(res, errorReply(who.refusal.status, who.refusal.code, who.refusal.message));
      return;
    }
    Promise.resolve(match.route.handle({ req, res, params: match.params, query: target.query, principal: who?.principal ?? null })).then(
      (reply) => {
        if (reply !== null) sendReply(res, reply);
      },
      () => sendReply(res, errorReply(500, 'internal', 'failed')),
    );
  });
  const manager = new PtyManager({ projectRoot: opts.project });
  const queue = new ApprovalQueue(state);
  const attach = (): WebSocketEndpoint => attachWebSocket(server, { manager, queue, projectState: state, configRules: opts.configRules ?? [], credentials, hosts, log: () => {} });
  let ws = attach();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no TCP address');
  hosts.port = addr.port;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    accessToken,
    state,
    manager,
    restartWebSocket: async () => {
      await ws.close();
      ws = attach();
    },
    close: async () => {
      // As the server stops: the terminals first, so that their sessions end before the endpoint closes.
      await manager.dispose();
      await ws.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
