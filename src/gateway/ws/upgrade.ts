// The checks an HTTP upgrade to `/ws` must pass before it becomes a WebSocket: the path,
// the gateway's Host rule, a loopback Origin on our port, and any credentials it carries.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HostPolicy } from '../host-origin.js';
import { isAllowedHost, isLoopbackOrigin, isPublicOrigin } from '../host-origin.js';
import type { Credentials, Grant } from '../credentials.js';

/** The one path that upgrades. */
const WS_PATH = '/ws';

/** Why an upgrade was refused: the HTTP status, a stable code and what to do. */
export interface UpgradeRefusal {
  status: 400 | 401 | 403 | 404 | 503;
  code: string;
  message: string;
}

/** The outcome of checking an upgrade: a grant from its headers (or none yet), or a refusal. */
export type UpgradeCheck = { ok: true; grant: Grant | null } | { ok: false; refusal: UpgradeRefusal };

function refuse(status: 401 | 403 | 404, code: string, message: string): UpgradeCheck {
  return { ok: false, refusal: { status, code, message } };
}

/**
 * Checks an upgrade request. A PTY is remote code execution, so the Origin rule is
 * stricter than for HTTP: no browser page but one served from loopback on our own port
 * (or from the public URL `--public-url` names, through it) may open the socket (a missing Origin means a non-browser client, which needs a token).
 */
export function checkUpgrade(req: IncomingMessage, hosts: HostPolicy, credentials: Credentials): UpgradeCheck {
  const path = (req.url ?? '').split('?')[0];
  if (path !== WS_PATH) return refuse(404, 'not_found', `no WebSocket endpoint here: connect to ${WS_PATH}`);
  const { host, origin } = req.headers;
  if (!isAllowedHost(host, hosts)) {
    return refuse(403, 'bad_host', `this server does not answer to that Host: use ws://127.0.0.1:${hosts.port}${WS_PATH}`);
  }
  if ((origin !== undefined && !isLoopbackOrigin(origin, hosts.port) && !isPublicOrigin(origin, host, hosts)) || req.headers['sec-fetch-site'] === 'cross-site') {
    return refuse(403, 'bad_origin', 'WebSocket connections from other sites are refused: open the dashboard this gateway serves');
  }
  const presented = credentials.fromRequest(req);
  if (presented.kind === 'invalid' && presented.via === 'bearer') {
    return refuse(401, 'unauthorized', 'the bearer token is not valid: use the access token `gatehouse serve` printed, or a configured token');
  }
  // A stale cookie is ignored instead: the access token changes at every start, and the page can still sign in by message.
  return { ok: true, grant: presented.kind === 'grant' ? presented.grant : null };
}

const STATUS_TEXT: Record<UpgradeRefusal['status'], string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' };

/** Answers a refused upgrade with a JSON error (the gateway's `{error: {code, message}}`) and closes the socket. */
export function refuseUpgrade(socket: Duplex, refusal: UpgradeRefusal): void {
  const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
  const head = [
    `HTTP/1.1 ${refusal.status} ${STATUS_TEXT[refusal.status]}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    'Cache-Control: no-store',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  if (refusal.status === 401) head.push('WWW-Authenticate: Bearer realm="gatehouse"');
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  socket.once('finish', () => socket.destroy());
}
