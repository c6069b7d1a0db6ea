// The warm hook endpoint: the very hook gate the cold command runs (`runHookGate`),
// evaluated inside the supervisor for the bash client in dist/hook/warm.sh, which pays no
// Node start-up. Loopback callers only, each call carrying its own session's secret.
import type { IncomingMessage } from 'node:http';
import { basename } from 'node:path';
import { runHookGate } from '../gate/hook-gate.js';
import type { HookOutput } from '../adapters/adapter.js';
import type { GateRunner } from './gate-runner.js';
import { AGENT_NAME_RE } from '../adapters/registry.js';
import { readWarmSecret } from '../runtime/warm-secret.js';
import { sameSecret } from '../runtime/secret-compare.js';
import { isSafeSessionId } from '../runtime/state-dir.js';
import { SHA256_HEX_RE } from '../runtime/session-files.js';
import { bearerToken } from './bearer.js';
import { errorReply, readBody, type Reply } from './http-io.js';
import { isLoopbackHost } from './options.js';
import type { RouteContext, Router } from './router.js';
import { MAX_INPUT_BYTES } from '../core/hook-input.js';

/** The hook's stdin cap (the cold path's) plus room for the cwd line. */
const MAX_BODY_BYTES = MAX_INPUT_BYTES + 64 * 1024;
/** Server-side evaluation times kept for `GET /api/hooks/stats`. */
const TIMINGS_KEPT = 1000;
const EVENT_RE = /^[A-Za-z][A-Za-z.]{0,31}$/;

/** Server time per warm hook call, most recent last. */
interface HookTimings {
  samples_us: number[];
}

function secretMatches(req: IncomingMessage, expected: string): boolean {
  const given = bearerToken(req.headers.authorization);
  return given !== null && sameSecret(given, expected);
}

/** Splits `<len(cwd)>\n<cwd><stdin>`; null if malformed. */
function splitWarmBody(body: Buffer): { cwd: string; stdin: string } | null {
  const nl = body.indexOf(0x0a);
  if (nl < 1 || nl > 10) return null;
  const len = Number(body.subarray(0, nl).toString('latin1'));
  if (!Number.isSafeInteger(len) || len < 1 || nl + 1 + len > body.length) return null;
  return { cwd: body.subarray(nl + 1, nl + 1 + len).toString('utf8'), stdin: body.subarray(nl + 1 + len).toString('utf8') };
}

async function warmHook(ctx: RouteContext, projectState: string, timings: HookTimings, gate: GateRunner): Promise<Reply | null> {
  const { req, res, params } = ctx;
  if (!isLoopbackHost(req.socket.remoteAddress ?? '')) return errorReply(403, 'not_loopback', 'the hook endpoint answers this machine only');
  const session = params['session'] ?? '';
  const event = params['event'] ?? '';
  const agent = params['agent'] ?? '';
  const failClosed = params['fc'] ?? '';
  const policyDigest = ctx.query.get('p');
  if (!isSafeSessionId(session) || !EVENT_RE.test(event) || !AGENT_NAME_RE.test(agent) || (failClosed !== '0' && failClosed !== '1') || (policyDigest !== null && !SHA256_HEX_RE.test(policyDigest))) {
    return errorReply(400, 'bad_hook_call', 'malformed hook call: the rendered hook is not from this version; end and restart the session');
  }
  // A key names the project a `serve --all` serves under it; any other server is not that project's, so the client goes cold.
  const project = ctx.query.get('project');
  if (project !== null && project !== basename(projectState)) return errorReply(404, 'no_such_project', 'this supervisor does not serve that project: the hook decides with the cold command');
  const secret = readWarmSecret(projectState, session);
  if (secret === null || !secretMatches(req, secret)) return errorReply(401, 'bad_secret', 'no warm hook secret matches for this session');
  const body = await readBody(req, MAX_BODY_BYTES);
  if (body === 'too_large') return errorReply(413, 'body_too_large', `the hook input exceeds ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
  const parts = body === 'unreadable' ? null : splitWarmBody(body);
  if (parts === null) return errorReply(400, 'bad_body', 'the hook body must be "<len(cwd)>\\n<cwd><stdin>"');
  // Accepted: the client now knows the supervisor is working on it, however long the checks take.
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.flushHeaders();
  const started = process.hrtime.bigint();
  // The client gone (the agent killed, its hook timed out): a waiting approval is withdrawn, running checks stopped.
  const cancel = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) cancel.abort();
  });
  let out: HookOutput;
  try {
    out = await gate({ sessionId: session, eventName: event, stateDir: projectState, agent, failClosed: failClosed === '1', policyDigest, stdin: parts.stdin, cwd: parts.cwd, signal: cancel.signal });
  } catch {
    // The worker running it died: a cut-off reply makes the client decide with the cold hook.
    res.destroy();
    return null;
  }
  timings.samples_us.push(Number(process.hrtime.bigint() - started) / 1000);
  if (timings.samples_us.length > TIMINGS_KEPT) timings.samples_us.splice(0, timings.samples_us.length - TIMINGS_KEPT);
  res.end(`GATEHOUSE1 ${out.exitCode} ${Buffer.byteLength(out.stdout)} ${Buffer.byteLength(out.stderr)}\n${out.stdout}${out.stderr}`);
  return null;
}

/**
 * Adds `POST /hooks/v1/:session/:event/:agent/:fc` (the warm hook call) and
 * `GET /api/hooks/stats` (server time per call, for the benchmark and diagnostics).
 */
export function addHookRoutes(router: Router, projectState: string, gate: GateRunner = runHookGate): Router {
  const timings: HookTimings = { samples_us: [] };
  return router
    .add({ method: 'POST', path: '/hooks/v1/:session/:event/:agent/:fc', handle: (ctx) => warmHook(ctx, projectState, timings, gate) })
    .add({ method: 'GET', path: '/api/hooks/stats', scope: 'approvals:read', handle: () => ({ status: 200, body: { samples_us: [...timings.samples_us] } }) });
}
