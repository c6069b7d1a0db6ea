// Reads one client frame as a JSON-RPC 2.0 request and runs it: the auth gate first (no
// token, no method), then the frame cap, the method's capability, its params, its handler.
import type { RawData } from 'ws';
import { APPROVAL_METHODS } from './approval-methods.js';
import type { Connection } from './connection.js';
import type { Credentials, Grant } from '../credentials.js';
import { CLOSE_CODES, RpcError } from './errors.js';
import { EVENT_METHODS } from './event-methods.js';
import type { RpcId } from './frames.js';
import { MAX_FRAME_BYTES } from './frames.js';
import type { Method, MethodContext } from './method.js';
import { PTY_METHODS } from './pty-methods.js';
import { SESSION_METHODS } from './session-methods.js';

/** Every method but `auth`, which the dispatcher handles itself. */
const METHODS: Readonly<Record<string, Method>> = { ...PTY_METHODS, ...EVENT_METHODS, ...APPROVAL_METHODS, ...SESSION_METHODS };

/** The method that authenticates a connection by message. */
const AUTH_METHOD = 'auth';

/** A request as read off the wire; `id` undefined means a notification (never answered). */
export type ParsedRequest = { ok: true; id: RpcId | undefined; method: string; params: unknown } | { ok: false; id: RpcId; error: RpcError };

function invalid(id: RpcId, message: string): ParsedRequest {
  return { ok: false, id, error: new RpcError('invalid_request', message) };
}

/**
 * Parses a text frame as one JSON-RPC 2.0 request with named params.
 * @example parseRequest('{"jsonrpc":"2.0","id":1,"method":"pty.list"}') // { ok: true, id: 1, method: 'pty.list', params: undefined }
 */
export function parseRequest(text: string): ParsedRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, id: null, error: new RpcError('parse_error', 'the frame is not JSON: send one JSON-RPC 2.0 request object per frame') };
  }
  if (Array.isArray(value)) return invalid(null, 'batches are not supported: send one request per frame');
  if (typeof value !== 'object' || value === null) return invalid(null, 'send a JSON-RPC 2.0 request object: {"jsonrpc":"2.0","id":1,"method":"…","params":{…}}');
  const r = value as Record<string, unknown>;
  const hasId = Object.hasOwn(r, 'id');
  const id = r.id;
  if (hasId && id !== null && typeof id !== 'string' && typeof id !== 'number') return invalid(null, 'id must be a string or a number');
  const replyId = hasId ? (id as RpcId) : null;
  if (r.jsonrpc !== '2.0') return invalid(replyId, 'jsonrpc must be "2.0"');
  if (typeof r.method !== 'string') return invalid(replyId, 'method must be a string, e.g. "pty.list"');
  if (r.params !== undefined && (typeof r.params !== 'object' || r.params === null || Array.isArray(r.params))) {
    return { ok: false, id: replyId, error: new RpcError('invalid_params', 'params must be an object of named members') };
  }
  return { ok: true, id: hasId ? (id as RpcId) : undefined, method: r.method, params: r.params };
}

/** What the dispatcher needs beyond one method's context. */
export interface DispatchContext extends Omit<MethodContext, 'conn'> {
  credentials: Credentials;
  /** Marks `conn` authenticated (joins the hub, stops the auth timer). */
  authenticated(conn: Connection, grant: Grant): void;
  log(line: string): void;
}

function refuseUnauthenticated(conn: Connection, id: RpcId | undefined, message: string): void {
  conn.replyError(id ?? null, new RpcError('unauthorized', message));
  conn.close(CLOSE_CODES.unauthorized, 'unauthorized');
}

function authenticate(ctx: DispatchContext, conn: Connection, id: RpcId | undefined, params: unknown): void {
  const token = (params as { token?: unknown } | undefined)?.token;
  const grant = typeof token === 'string' ? ctx.credentials.match(token) : null;
  if (grant === null) {
    refuseUnauthenticated(conn, id, 'that token is not valid: use the access token `gatehouse serve` printed, or a configured token');
    return;
  }
  ctx.authenticated(conn, grant);
  conn.reply(id, { principal: grant.principal.id, capabilities: [...grant.capabilities] });
}

/**
 * Handles one frame from `conn`. Never throws and never waits on the PTY: a slow method
 * (a session start) runs on while later frames are handled.
 */
export async function dispatch(ctx: DispatchContext, conn: Connection, data: RawData, isBinary: boolean): Promise<void> {
  const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  const req: ParsedRequest = isBinary ? invalid(null, 'send text frames: binary frames are not part of this protocol') : parseRequest(bytes.toString('utf8'));
  const id = req.id;
  if (conn.grant === null && !(req.ok && req.method === AUTH_METHOD && bytes.length <= MAX_FRAME_BYTES)) {
    refuseUnauthenticated(conn, id, 'authenticate first: send {"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"…"}}');
    return;
  }
  if (!req.ok) {
    conn.replyError(id, req.error);
    return;
  }
  if (bytes.length > MAX_FRAME_BYTES) {
    conn.replyError(id, new RpcError('frame_too_large', `the frame is ${bytes.length} bytes, over the ${MAX_FRAME_BYTES}-byte cap: nothing was done; send less per request`));
    return;
  }
  if (req.method === AUTH_METHOD) {
    authenticate(ctx, conn, id, req.params);
    return;
  }
  const method = Object.hasOwn(METHODS, req.method) ? METHODS[req.method] : undefined;
  if (method === undefined) {
    conn.replyError(id, new RpcError('method_not_found', `no method ${JSON.stringify(req.method)}: use one of ${[AUTH_METHOD, ...Object.keys(METHODS)].join(', ')}`));
    return;
  }
  if (method.capability !== null && !conn.can(method.capability)) {
    conn.replyError(id, new RpcError('forbidden', `your token cannot call ${req.method}: it needs the ${method.capability} capability`));
    return;
  }
  try {
    const outcome = await method.run({ ...ctx, conn }, req.params);
    if (outcome instanceof RpcError) conn.replyError(id, outcome);
    else conn.reply(id, outcome);
  } catch (err) {
    ctx.log(`gatehouse ws: ${req.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    conn.replyError(id, new RpcError('internal', 'the gateway failed unexpectedly; see its log'));
  }
}
