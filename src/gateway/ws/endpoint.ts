// The JSON-RPC WebSocket endpoint (`/ws`) of one project: authenticates connections and wires
// the PTY manager and approvals to them. Upgrades reach it through one dispatcher per server.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import type { AlwaysAllowRule } from '../../core/approvals/always-allow.js';
import type { ApprovalQueue } from '../../runtime/approvals/index.js';
import type { HostPolicy } from '../host-origin.js';
import { fitPending } from './approval-methods.js';
import type { ConnectionStats } from './connection.js';
import { Connection } from './connection.js';
import type { Credentials, Grant } from '../credentials.js';
import type { DispatchContext } from './dispatch.js';
import { dispatch } from './dispatch.js';
import { CLOSE_CODES } from './errors.js';
import { MAX_PAYLOAD_BYTES } from './frames.js';
import type { PtyHost, WebSocketHooks } from './pty-host.js';
import type { FlowStats } from './session-hub.js';
import { SessionHub } from './session-hub.js';
import { dispatchUpgrades } from './upgrade-dispatch.js';

/** A connection that has not authenticated by header or cookie must send `auth` within this. */
export const AUTH_TIMEOUT_MS = 5_000;
/** How often idle sockets are pinged; one missed pong and the socket is dropped, so a vanished peer goes within two periods. */
const HEARTBEAT_MS = 30_000;
/** How long close() waits for the ends of exited sessions (final checks included) before it stops anyway. */
const SESSION_ENDS_GRACE_MS = 60_000;
/** How long close() waits for clients to finish the closing handshake before cutting them off. */
const CLOSE_GRACE_MS = 1_000;

/** What the server's owner provides for `/ws` (see `GatewayOptions.websocket`). */
export interface WebSocketOptions {
  /** The one PTY manager of this server (a `PtyManager`). */
  manager: PtyHost;
  hooks?: WebSocketHooks;
  /** The config's always-allow rules, listed beside the answered ones (default none). */
  configRules?: readonly AlwaysAllowRule[];
}

/** Everything {@link attachWebSocket} needs; the gateway fills in the last five. */
export interface AttachOptions extends WebSocketOptions {
  queue: ApprovalQueue;
  /** The project state folder the queue and the answered always-allow rules live in. */
  projectState: string;
  /** The gateway's access token and scoped tokens, shared with its HTTP routes. */
  credentials: Credentials;
  /** The gateway's Host rule; its `port` is read on every upgrade, so it may be filled in after listen. */
  hosts: HostPolicy;
  log?: (line: string) => void;
}

/** A project's endpoint, before any server routes upgrades to it. */
export interface ProjectEndpoint extends WebSocketEndpoint {
  /** Completes an upgrade that already passed the server's checks (`checkUpgrade`), with the grant its headers carried. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, grant: Grant | null): void;
}

/** The attached endpoint. */
export interface WebSocketEndpoint {
  /**
   * Waits for the ends of the sessions that exited (up to a minute), then closes every connection
   * (1001) and detaches from the server and the manager. The manager stays the caller's: dispose
   * it first, so that its sessions' exits still reach this endpoint and end their Gatehouse sessions.
   */
  close(): Promise<void>;
  /** Outbound queues and flow-control state, for tests and diagnostics. */
  stats(): { connections: ConnectionStats[]; sessions: FlowStats[] };
}

/**
 * Serves JSON-RPC 2.0 over WebSocket at `/ws` on `server`: the one project's endpoint behind the
 * server's upgrade dispatcher.
 * @example const ws = attachWebSocket(server, { manager, queue, projectState, credentials: new Credentials(accessToken, operator, []), hosts })
 */
export function attachWebSocket(server: Server, opts: AttachOptions): WebSocketEndpoint {
  const endpoint = createWebSocketEndpoint(opts);
  const upgrades = dispatchUpgrades(server, { hosts: opts.hosts, credentials: opts.credentials, target: () => ({ ok: true, endpoint }) });
  return {
    stats: () => endpoint.stats(),
    close: async () => {
      upgrades.close();
      await endpoint.close();
    },
  };
}

/**
 * One project's `/ws` endpoint, not yet reachable: a server's upgrade dispatcher hands it the
 * upgrades for this project (see {@link attachWebSocket}, and `serve --all`'s per-project ones).
 */
export function createWebSocketEndpoint(opts: AttachOptions): ProjectEndpoint {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { credentials } = opts;
  const hub = new SessionHub(opts.manager, log);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES, perMessageDeflate: false, clientTracking: false });
  const conns = new Set<Connection>();
  const authTimers = new Map<Connection, NodeJS.Timeout>();
  let nextId = 1;
  let approvalsWatch: { close(): void } | null = null;

  /** Runs a manager callback without letting one of our bugs escape into the PTY reader. */
  const guarded =
    <A extends unknown[]>(what: string, fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        log(`gatehouse ws: ${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    };
  const listeners = [
    opts.manager.onOutput(guarded('delivering PTY output', (id: string, seq: number, data: Buffer) => hub.output(id, seq, data))),
    opts.manager.onExit(guarded('reporting a PTY exit', (id: string, info) => hub.exit(id, info))),
  ];

  const syncApprovalsWatch = (): void => {
    const wanted = [...conns].some((c) => c.wants('approvals.changed'));
    if (wanted && approvalsWatch === null) {
      approvalsWatch = opts.queue.watch(guarded('listing approvals', () => hub.broadcast('approvals.changed', fitPending(opts.queue.list()))));
    } else if (!wanted && approvalsWatch !== null) {
      approvalsWatch.close();
      approvalsWatch = null;
    }
  };

  const ctx: DispatchContext = {
    hub,
    manager: opts.manager,
    queue: opts.queue,
    rules: { projectState: opts.projectState, config: opts.configRules ?? [] },
    hooks: opts.hooks ?? {},
    projectState: opts.projectState,
    credentials,
    log,
    subscriptionsChanged: syncApprovalsWatch,
    authenticated: (conn, grant) => {
      clearTimeout(authTimers.get(conn));
      authTimers.delete(conn);
      conn.grant = grant;
      hub.join(conn);
    },
  };

  const onConnection = (ws: WebSocket, grant: Grant | null): void => {
    const conn = new Connection(nextId++, ws, null, Date.now);
    conns.add(conn);
    if (grant !== null) ctx.authenticated(conn, grant);
    else {
      const timer = setTimeout(() => conn.close(CLOSE_CODES.unauthorized, 'unauthorized: no token within 5 s'), AUTH_TIMEOUT_MS);
      authTimers.set(conn, timer);
    }
    ws.on('message', (data, isBinary) => void dispatch(ctx, conn, data, isBinary));
    ws.on('pong', () => {
      conn.alive = true;
    });
    // Protocol errors (an oversized or malformed frame) close the socket with the right code; nothing to add.
    ws.on('error', () => {});
    ws.on('close', () => {
      clearTimeout(authTimers.get(conn));
      authTimers.delete(conn);
      conns.delete(conn);
      hub.leave(conn);
      conn.dispose();
      syncApprovalsWatch();
    });
  };

  const heartbeat = setInterval(() => {
    for (const c of conns) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  let closed = false;
  return {
    accept: (req, socket, head, grant) => {
      if (closed) socket.destroy();
      else wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, grant));
    },
    stats: () => ({ connections: [...conns].map((c) => c.stats()), sessions: hub.stats() }),
    close: async () => {
      closed = true;
      clearInterval(heartbeat);
      // The sessions' ends that exits already started (the manager is disposed first) finish
      // before the listeners go: their hooks removed, their final checks run, their sandboxes closed.
      if (!(await hub.endsDone(SESSION_ENDS_GRACE_MS))) log(`gatehouse ws: some sessions were still ending after ${SESSION_ENDS_GRACE_MS / 1000} s; stopping without them`);
      for (const l of listeners) l.dispose();
      approvalsWatch?.close();
      approvalsWatch = null;
      await Promise.all([...conns].map((c) => closeConnection(c)));
      wss.close();
    },
  };
}

function closeConnection(c: Connection): Promise<void> {
  return new Promise((resolve) => {
    if (c.ws.readyState === c.ws.CLOSED) {
      resolve();
      return;
    }
    const timer = setTimeout(() => c.ws.terminate(), CLOSE_GRACE_MS);
    c.ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    c.close(CLOSE_CODES.going_away, 'server shutting down');
  });
}
