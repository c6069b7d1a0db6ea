// `gatehouse serve`'s HTTP server: checks Host and Origin on every request, routes it,
// names the caller for routes that need a scope, and writes JSON replies.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { isIP } from 'node:net';
import { basename } from 'node:path';
import { dashboardOperator } from '../core/approvals/principal.js';
import { ApprovalQueue } from '../runtime/approvals/index.js';
import { osUserName } from '../runtime/recorder.js';
import { addApprovalRoutes } from './approvals-routes.js';
import { authenticate } from './auth.js';
import { compileTokens, Credentials } from './credentials.js';
import type { HostPolicy } from './host-origin.js';
import { isAllowedHost, isAllowedOrigin, isPublicOrigin, publicAuthority } from './host-origin.js';
import type { Reply } from './http-io.js';
import { errorReply, sendReply } from './http-io.js';
import type { GatewayOptions } from './options.js';
import { checkBind, DEFAULT_HOST, DEFAULT_PORT } from './options.js';
import { Router, splitTarget } from './router.js';
import { listingOf } from './projects/project-pool.js';
import type { ProjectSource } from './projects/served-project.js';
import { sweepPeriodically } from './sweeper.js';
import type { WebSocketEndpoint } from './ws/endpoint.js';
import { attachWebSocket } from './ws/endpoint.js';
import { dispatchUpgrades, type UpgradeTarget } from './ws/upgrade-dispatch.js';

/** A running gateway. */
export interface Gateway {
  /** Base URL a local client can use, e.g. `http://127.0.0.1:7337`. */
  url: string;
  port: number;
  /** The `/ws` endpoint, when `websocket` was given. */
  websocket: WebSocketEndpoint | null;
  /** Stops accepting, lets in-flight requests finish briefly, then drops the rest. */
  close(): Promise<void>;
}

/** Headers plus body of one request must arrive within this; a decision is a few hundred bytes. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Headers must arrive within this, so a slow-loris client cannot hold a socket for long. */
const HEADERS_TIMEOUT_MS = 10_000;
/** Node's default header cap (16 KiB), stated so it cannot drift: a bearer token is far smaller. */
const MAX_HEADER_BYTES = 16 * 1024;
/** Open sockets at once: a few operators, CLIs and dashboards, never hundreds. */
const MAX_CONNECTIONS = 128;
/** How long close() lets in-flight requests finish before dropping them. */
const CLOSE_GRACE_MS = 2_000;

/** Everything one request needs to know about the running server. */
interface Served {
  router: Router;
  hosts: HostPolicy;
  credentials: Credentials;
  log: (line: string) => void;
  /** With several projects: where a path the server's own router lacks is looked up, by `?project=`. */
  projects: ProjectSource | null;
}

async function route(req: IncomingMessage, res: ServerResponse, s: Served): Promise<Reply | null> {
  const { host, origin } = req.headers;
  if (!isAllowedHost(host, s.hosts)) {
    return errorReply(403, 'bad_host', `this server does not answer to that Host: use http://127.0.0.1:${s.hosts.port}`);
  }
  if ((!isAllowedOrigin(origin, host, s.hosts.port) && !isPublicOrigin(origin, host, s.hosts)) || req.headers['sec-fetch-site'] === 'cross-site') {
    return errorReply(403, 'bad_origin', 'requests from other sites are refused: open the page served by this gateway');
  }
  const target = splitTarget(req.url ?? '');
  if (target === null) return errorReply(404, 'not_found', 'no such endpoint: paths start with a single /');
  let match = s.router.match(req.method ?? '', target.segments);
  if (match.kind === 'not_found' && s.projects !== null) {
    // A project's own routes (approvals, audit status, hook calls): the key picks whose.
    const picked = await s.projects.pick(target.query.get('project'));
    if (!picked.ok) return errorReply(picked.refusal.status, picked.refusal.code, picked.refusal.message);
    match = picked.project.router.match(req.method ?? '', target.segments);
  }
  if (match.kind === 'not_found') return errorReply(404, 'not_found', 'no such endpoint: see GET /approvals/queue');
  if (match.kind === 'method_not_allowed') {
    return errorReply(405, 'method_not_allowed', `use ${match.allow.join(' or ')} on this path`, { allow: match.allow.join(', ') });
  }
  let principal = null;
  if (match.route.scope !== undefined) {
    const who = authenticate(req, match.route.scope, s.credentials);
    if (!who.ok) {
      const { status, code, message, challenge } = who.refusal;
      return errorReply(status, code, message, challenge === undefined ? undefined : { 'www-authenticate': challenge });
    }
    principal = who.principal;
  }
  if (match.badParam !== null) return errorReply(400, `bad_${match.badParam}`, `the ${match.badParam} in the path is not valid percent-encoding`);
  return match.route.handle({ req, res, params: match.params, query: target.query, principal });
}

function onRequest(req: IncomingMessage, res: ServerResponse, s: Served): void {
  route(req, res, s).then(
    (reply) => {
      if (reply !== null) sendReply(res, reply);
    },
    (err: unknown) => {
      // Only the method and path are logged: headers carry bearer secrets.
      const path = (req.url ?? '').split('?')[0] ?? '';
      s.log(`gatehouse gateway: ${req.method ?? '?'} ${path} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) sendReply(res, errorReply(500, 'internal', 'the gateway failed unexpectedly; see its log'));
      else res.destroy();
    },
  );
}

/** The URL a local client should use: wildcard binds are reached through loopback. */
function baseUrl(host: string, port: number): string {
  const wildcard = host === '0.0.0.0' || host === '::';
  const h = wildcard ? '127.0.0.1' : isIP(host) === 6 ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const addr = server.address();
      if (addr === null || typeof addr === 'string') reject(new Error('gateway server has no TCP address'));
      else resolve(addr.port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The project a `/ws` upgrade names (`/ws?project=<key>`), for a server of several projects. */
async function upgradeTarget(projects: ProjectSource, req: IncomingMessage): Promise<UpgradeTarget> {
  const key = splitTarget(req.url ?? '')?.query.get('project') ?? null;
  const picked = await projects.pick(key);
  return picked.ok ? { ok: true, endpoint: picked.project.websocket } : { ok: false, refusal: picked.refusal };
}

/**
 * Starts the gateway's HTTP server. Rejects, with a message that says what to change,
 * on a refused bind (non-loopback without tokens), a bad token or a busy port.
 * @example const gw = await startGateway({ projectState, host: '127.0.0.1', port: 0, accessToken, tokens: [] })
 */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const host = opts.host || DEFAULT_HOST;
  const bind = checkBind(host, opts.tokens);
  if (!bind.ok) throw new Error(bind.reason);
  const tokens = compileTokens(opts.tokens, opts.env ?? process.env);
  if (!tokens.ok) throw new Error(tokens.reason);
  const operator = dashboardOperator(opts.operator ?? osUserName());
  if (!operator.ok) throw new Error(`the operator name cannot name a principal: ${operator.reason}`);
  const credentials = new Credentials(opts.accessToken, operator.value, tokens.value);

  const router = new Router().add({ method: 'GET', path: '/healthz', handle: () => ({ status: 200, body: { ok: true } }) });
  const hosts: HostPolicy = { port: 0, bindHost: host, extra: (opts.allowedHosts ?? []).map((h) => h.toLowerCase()), public: opts.publicUrl == null ? null : publicAuthority(opts.publicUrl) };
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const projects = opts.projects?.({ credentials, hosts, log }) ?? null;
  // One project: its queue is the server's. Several: each project has its own (see ProjectSource).
  const queue = projects === null ? new ApprovalQueue(opts.projectState) : null;
  // Records left by hook processes that died while waiting are denied by the sweeper, on start and then periodically.
  const stopSweeping = queue === null ? () => {} : sweepPeriodically(queue);
  if (queue !== null) addApprovalRoutes(router, queue);
  router.add({
    method: 'GET',
    path: '/api/projects',
    scope: 'approvals:read',
    handle: () => {
      const listed = projects?.list() ?? [listingOf({ key: basename(opts.projectState), state: opts.projectState, worktree: opts.worktree ?? null }, queue as ApprovalQueue, null)];
      return { status: 200, body: { multi: projects !== null, projects: listed, team: opts.team === true } };
    },
  });
  opts.routes?.(router);

  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS });
  server.maxConnections = MAX_CONNECTIONS;
  const served: Served = { router, hosts, credentials, log, projects };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => onRequest(req, res, served));
  let websocket: WebSocketEndpoint | null = null;
  let upgrades: { close(): void } | null = null;
  if (projects !== null) upgrades = dispatchUpgrades(server, { hosts, credentials, target: (req) => upgradeTarget(projects, req) });
  else if (opts.websocket !== undefined && queue !== null) websocket = attachWebSocket(server, { ...opts.websocket, queue, projectState: opts.projectState, credentials, hosts, log });

  const closeParts = async (): Promise<void> => {
    stopSweeping();
    upgrades?.close();
    // Upgraded sockets no longer belong to the HTTP server: close them first, or close() waits on them.
    await websocket?.close();
    await projects?.close();
  };
  let port: number;
  try {
    port = await listen(server, opts.port ?? DEFAULT_PORT, host);
  } catch (err) {
    await closeParts();
    throw err;
  }
  hosts.port = port;
  const close = async (): Promise<void> => {
    await closeParts();
    await closeServer(server);
  };
  return { url: baseUrl(host, port), port, websocket, close };
}
