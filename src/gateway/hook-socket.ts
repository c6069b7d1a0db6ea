// The sandboxed hook endpoint: a Unix socket, bound into the sandbox, on which the
// supervising process answers one session's hook calls with the very gate the cold command
// runs (`runHookGate`), reading state and keys the sandbox cannot see. No TCP: it works with
// `--network none`, and nothing but the sandbox (and this user outside it) can reach it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookOutput } from '../adapters/adapter.js';
import { runHookGate } from '../gate/hook-gate.js';
import type { GateRunner } from './gate-runner.js';
import { refusalFileName } from '../adapters/hook-transport.js';
import { AGENT_NAME_RE } from '../adapters/registry.js';
import { SANDBOX_SOCKET_NAME } from '../core/sandbox.js';
import { block, type Verdict } from '../core/verdict.js';
import { writeFileAtomic } from '../runtime/fs-atomic.js';
import { SHA256_HEX_RE } from '../runtime/session-files.js';
import { MAX_INPUT_BYTES } from '../core/hook-input.js';

/** The hook's stdin cap (the cold path's) plus room for the cwd. */
const MAX_BODY_BYTES = MAX_INPUT_BYTES + 64 * 1024;
/** Calls answered at once: an agent's hooks come a few at a time; a flood of connections (each may buffer a large input) is cut off. */
const MAX_CONNECTIONS = 64;
/** A header line is short; anything longer is not a hook client. */
const MAX_HEADER_BYTES = 1024;
const EVENT_RE = /^[A-Za-z][A-Za-z.]{0,31}$/;
const HEADER_RE = /^GATEHOUSE1 (\S+) (\S+) (\S+) ([01]) ([0-9a-f]{64}) (\d{1,9}) (\d{1,9})$/;

/** One parsed request, or null when it is not a well-formed call for this session. */
export interface SocketHookCall {
  event: string;
  agent: string;
  failClosed: boolean;
  policyDigest: string;
  cwd: string;
  stdin: string;
}

/** Reads `GATEHOUSE1 …\n<cwd><stdin>` once complete; `incomplete` while bytes are missing. */
export function parseSocketCall(buf: Buffer, sessionId: string): SocketHookCall | 'incomplete' | null {
  const nl = buf.indexOf(0x0a);
  if (nl < 0) return buf.length > MAX_HEADER_BYTES ? null : 'incomplete';
  const m = HEADER_RE.exec(buf.subarray(0, nl).toString('latin1'));
  if (!m) return null;
  const [, session, event, agent, fc, digest, cwdLen, bodyLen] = m as unknown as [string, string, string, string, string, string, string, string];
  if (session !== sessionId || !EVENT_RE.test(event) || !AGENT_NAME_RE.test(agent) || !SHA256_HEX_RE.test(digest)) return null;
  const need = nl + 1 + Number(cwdLen) + Number(bodyLen);
  if (Number(cwdLen) < 1 || need - nl > MAX_BODY_BYTES) return null;
  if (buf.length < need) return 'incomplete';
  const cwdEnd = nl + 1 + Number(cwdLen);
  return { event, agent, failClosed: fc === '1', policyDigest: digest, cwd: buf.subarray(nl + 1, cwdEnd).toString('utf8'), stdin: buf.subarray(cwdEnd, need).toString('utf8') };
}

/** A reply as the client reads it. */
export function socketReply(out: HookOutput): Buffer {
  const stdout = Buffer.from(out.stdout);
  const stderr = Buffer.from(out.stderr);
  return Buffer.concat([Buffer.from(`GATEHOUSE1 ${out.exitCode} ${stdout.length} ${stderr.length}\n`), stdout, stderr]);
}

/** A running socket endpoint. */
export interface HookSocket {
  /** The host folder holding the socket and the refusal files (bound into the sandbox). */
  dir: string;
  /** Server time per call in microseconds, most recent last (for the benchmark). */
  samplesUs: number[];
  /** Stops answering and removes the folder. */
  close(): Promise<void>;
}

/** Why a sandboxed hook refuses when the supervisor cannot answer. */
const UNREACHABLE =
  'Gatehouse refused this: the supervisor of this sandboxed session cannot be reached (the `gatehouse run` or dashboard that started it has stopped), and a sandboxed session fails closed. Nothing the agent does can fix this; stop and tell the operator.';

/**
 * Starts the endpoint for one session in a fresh private folder under the system temp
 * folder (a short path: socket paths are limited to 107 bytes), with the refusal each event
 * kind gets from the client when this process is gone, in the agent's own output form.
 */
export async function startHookSocket(opts: { projectState: string; sessionId: string; output: (kind: 'pre_tool' | 'stop', v: Verdict) => HookOutput; gate?: GateRunner }): Promise<HookSocket> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-'));
  chmodSync(dir, 0o755);
  for (const kind of ['pre_tool', 'stop'] as const) {
    writeFileAtomic(join(dir, refusalFileName(kind)), socketReply(refusalFor(opts.output)(kind, UNREACHABLE)), { mode: 0o644 });
  }
  const samplesUs: number[] = [];
  // allowHalfOpen: a client's end of stream must not close our side before the verdict is written
  // (ours keeps its side open until it has the answer, and its end cancels the call).
  const open = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (conn) => {
    open.add(conn);
    conn.on('close', () => open.delete(conn));
    serve(conn, opts, samplesUs);
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(join(dir, SANDBOX_SOCKET_NAME), () => resolvePromise());
  });
  return {
    dir,
    samplesUs,
    // A connection the agent holds open must not keep the run from ending: every one is cut.
    close: () =>
      new Promise<void>((resolvePromise) => {
        for (const conn of open) conn.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolvePromise();
        });
      }),
  };
}

function serve(conn: Socket, opts: { projectState: string; sessionId: string; gate?: GateRunner }, samplesUs: number[]): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let answered = false;
  conn.on('error', () => conn.destroy());
  conn.on('data', (chunk: Buffer) => {
    if (answered) return;
    chunks.push(chunk);
    size += chunk.length;
    const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    chunks.length = 0;
    chunks.push(buf);
    const call = parseSocketCall(buf, opts.sessionId);
    if (call === 'incomplete') return;
    answered = true;
    // Not a call for this session: no answer at all, and the client refuses.
    if (call === null) return void conn.destroy();
    const started = process.hrtime.bigint();
    // Fail-closed whatever the call says: only sandboxed sessions use this endpoint, and the
    // caller could be any process in the sandbox, not the hook that was rendered.
    const gate = opts.gate ?? runHookGate;
    // The client gone before its answer (the agent killed, its hook timed out): the call is cancelled.
    const cancel = new AbortController();
    let replied = false;
    // The client keeps its side open until it has the answer: its end (or a closed socket) means it is gone.
    const gone = (): void => {
      if (!replied) cancel.abort();
    };
    conn.on('end', gone);
    conn.on('close', gone);
    gate({
      sessionId: opts.sessionId,
      eventName: call.event,
      stateDir: opts.projectState,
      agent: call.agent,
      failClosed: true,
      policyDigest: call.policyDigest,
      stdin: call.stdin,
      cwd: call.cwd,
      signal: cancel.signal,
    }).then(
      (out) => {
        samplesUs.push(Number(process.hrtime.bigint() - started) / 1000);
        if (samplesUs.length > 1000) samplesUs.splice(0, samplesUs.length - 1000);
        replied = true;
        conn.end(socketReply(out));
      },
      // The worker running it died: no answer, and the client refuses.
      () => conn.destroy(),
    );
  });
}

/**
 * The refusal for an event kind in the agent's output form: without the supervisor nothing
 * can be checked, so a tool call is refused and the turn's end halts the agent.
 */
function refusalFor(output: (kind: 'pre_tool' | 'stop', v: Verdict) => HookOutput): (kind: 'pre_tool' | 'stop', reason: string) => HookOutput {
  return (kind, reason) => output(kind, kind === 'stop' ? { decision: 'halt', rule: 'sandbox.supervisor_unreachable', reason } : block('sandbox.supervisor_unreachable', reason));
}
