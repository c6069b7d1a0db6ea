// The `pty.*` methods: spawn (optionally under a Gatehouse session), input, resize, close,
// list, attach/detach (catch up from the server-held screen, take control) and ack.
import { z } from 'zod';
import { parseAgentName } from '../../adapters/registry.js';
import type { AttachResult } from '../../protocol/pty.js';
import { SpawnParams } from '../../protocol/pty.js';
import type { ExitInfo } from '../pty/types.js';
import { noSuchSession, RpcError } from './errors.js';
import { fitScrollback } from './frames.js';
import type { Method, MethodContext } from './method.js';
import { defineMethod } from './method.js';
import type { SessionLaunch } from './pty-host.js';

/**
 * Largest `pty.input` (decoded bytes): the frame cap. A paste bigger than this is refused
 * whole rather than half-typed into an agent's terminal; the client can send it in parts.
 */
const MAX_INPUT_BYTES = 64 * 1024;

/** The folder a spawn without `cwd` runs in: the project root (the manager resolves against it). */
const DEFAULT_CWD = '.';

/** Strict base64 (what `btoa` and `Buffer#toString('base64')` produce). */
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** How a PTY that never ran (or whose session ended before it could) is reported to its session. */
const NEVER_RAN: ExitInfo = { exit_code: null, signal: null, reason: 'closed' };

const SessionId = z.string().min(1);
const Geometry = z.int().positive();

/** The session exists (running or exited but still listed), else the standard error. */
function known(ctx: MethodContext, id: string): RpcError | null {
  return ctx.manager.get(id) === null ? noSuchSession() : null;
}

function notController(): RpcError {
  return new RpcError('not_controller', 'you are viewing this session, not controlling it: call pty.attach with control: true first');
}

async function spawn(ctx: MethodContext, p: z.output<typeof SpawnParams>): Promise<unknown> {
  let launch: SessionLaunch | { spawn: SessionLaunch['spawn']; label?: string; onExit: null };
  if (p.session !== undefined) {
    const start = ctx.hooks.onSpawnSession;
    if (start === undefined) return new RpcError('unavailable', 'this gateway cannot start Gatehouse sessions: spawn without `session`');
    // An unknown agent is a bad request, as `--agent` is a usage error on the command line.
    const agent = parseAgentName(p.session.agent, { name: 'session.agent', none: 'session.agent "none" with a command' });
    if (!agent.ok) return new RpcError('invalid_params', agent.reason);
    const started = await start({ ...p, session: { ...p.session, agent: agent.value } });
    if (!started.ok) return new RpcError('session_failed', started.reason);
    launch = started.value;
    if (ctx.conn.ws.readyState !== ctx.conn.ws.OPEN) {
      // The client left while the session started: end it instead of running an orphan.
      ctx.hub.endSession(launch.onExit, NEVER_RAN, 'a PTY whose client left');
      return null;
    }
  } else {
    launch = { spawn: { command: p.command, args: p.args, cwd: p.cwd ?? DEFAULT_CWD, rows: p.rows, cols: p.cols }, onExit: null };
  }
  const info = ctx.manager.spawn(launch.spawn, launch.label);
  if (!info.ok) {
    if (launch.onExit !== null) ctx.hub.endSession(launch.onExit, NEVER_RAN, 'a PTY that did not start');
    return new RpcError('spawn_failed', info.reason);
  }
  ctx.hub.spawned(ctx.conn, info.value, launch.onExit);
  return info.value;
}

function input(ctx: MethodContext, p: { session_id: string; data: string; base64?: boolean | undefined }): unknown {
  if (p.base64 === true && !BASE64_RE.test(p.data)) return new RpcError('invalid_params', 'params.data: not valid base64');
  const data = p.base64 === true ? Buffer.from(p.data, 'base64') : p.data;
  const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  if (bytes > MAX_INPUT_BYTES) return new RpcError('frame_too_large', `pty.input carries ${bytes} bytes, over the ${MAX_INPUT_BYTES}-byte limit: nothing was written; send it in parts`);
  const missing = known(ctx, p.session_id);
  if (missing !== null) return missing;
  if (!ctx.hub.controls(ctx.conn, p.session_id)) return notController();
  const written = ctx.manager.write(p.session_id, data);
  return written.ok ? { bytes } : new RpcError('pty_refused', written.reason);
}

function resize(ctx: MethodContext, p: { session_id: string; cols: number; rows: number }): unknown {
  const missing = known(ctx, p.session_id);
  if (missing !== null) return missing;
  if (!ctx.hub.controls(ctx.conn, p.session_id)) return notController();
  const done = ctx.manager.resize(p.session_id, p.cols, p.rows);
  if (!done.ok) return new RpcError('pty_refused', done.reason);
  ctx.hub.resized(p.session_id, p.cols, p.rows);
  return { cols: p.cols, rows: p.rows };
}

function close(ctx: MethodContext, p: { session_id: string }): unknown {
  const missing = known(ctx, p.session_id);
  if (missing !== null) return missing;
  const done = ctx.manager.kill(p.session_id);
  return done.ok ? {} : new RpcError('pty_refused', done.reason);
}

async function attach(ctx: MethodContext, p: { session_id: string; control: boolean }): Promise<unknown> {
  const missing = known(ctx, p.session_id);
  if (missing !== null) return missing;
  const done = await ctx.manager.withSnapshot(p.session_id, (snap) => {
    // Same tick as the snapshot: every chunk after `seq` reaches this connection.
    ctx.hub.attach(ctx.conn, p.session_id, p.control);
    const { text, truncated } = fitScrollback(snap.data);
    const result: AttachResult = {
      session_id: p.session_id,
      scrollback: text,
      truncated,
      seq: snap.seq,
      cols: snap.cols,
      rows: snap.rows,
      skipped_bytes: snap.skipped_bytes,
      control: ctx.hub.controls(ctx.conn, p.session_id),
    };
    return result;
  });
  return done.ok ? done.value : new RpcError('pty_refused', done.reason);
}

/** The `pty.*` methods by name; all need the `pty` capability. */
export const PTY_METHODS: Readonly<Record<string, Method>> = {
  'pty.spawn': defineMethod('pty', SpawnParams, spawn),
  'pty.input': defineMethod('pty', z.strictObject({ session_id: SessionId, data: z.string(), base64: z.boolean().optional() }), input),
  'pty.resize': defineMethod('pty', z.strictObject({ session_id: SessionId, cols: Geometry, rows: Geometry }), resize),
  'pty.close': defineMethod('pty', z.strictObject({ session_id: SessionId }), close),
  'pty.list': defineMethod('pty', z.strictObject({}), (ctx) => ({ sessions: ctx.manager.list() })),
  'pty.attach': defineMethod('pty', z.strictObject({ session_id: SessionId, control: z.boolean().default(false) }), attach),
  'pty.detach': defineMethod('pty', z.strictObject({ session_id: SessionId }), (ctx, p) => {
    ctx.hub.detach(ctx.conn, p.session_id);
    return {};
  }),
  'pty.ack': defineMethod('pty', z.strictObject({ session_id: SessionId, chars: z.int().nonnegative() }), (ctx, p) => ctx.hub.ack(ctx.conn, p.session_id, p.chars)),
};
