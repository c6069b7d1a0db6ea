// Shared setup for the WebSocket tests: a real gateway with `/ws` and a real PtyManager
// over a temp project, and a small JSON-RPC client on a real `ws` socket.
import type { AlwaysAllowRule } from '../../../src/core/approvals/always-allow.js';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import { PtyManager } from '../../../src/gateway/pty/index.js';
import { decodeBinaryOutput } from '../../../src/protocol/index.js';
import type { GatewayOptions } from '../../../src/gateway/options.js';
import type { Gateway } from '../../../src/gateway/server.js';
import { startGateway } from '../../../src/gateway/server.js';
import { ApprovalQueue } from '../../../src/runtime/approvals/index.js';
import type { RpcErrorObject, WireEvent } from '../../../src/gateway/ws/index.js';
import { FlowControlConstants, parseWireEvent } from '../../../src/gateway/ws/index.js';
import type { WebSocketHooks } from '../../../src/gateway/ws/index.js';

/** The access token of every test server: long enough for the endpoint's minimum. */
export const ACCESS_TOKEN = 'access-token-0123456789abcdef0123';

/** Generous for a cold shell on a busy two-core machine; waits return as soon as they can. */
export const DEADLINE_MS = 20_000;
const POLL_MS = 10;

/** A started gateway with `/ws`, its manager and queue, and a way to tear it all down. */
export interface WsHarness {
  gw: Gateway;
  manager: PtyManager;
  queue: ApprovalQueue;
  project: string;
  /** The project state folder (queue and audit log). */
  state: string;
  /** `ws://127.0.0.1:<port>/ws` */
  url: string;
  close(): Promise<void>;
}

/** Starts a gateway on 127.0.0.1:0 with a real PtyManager over a fresh project folder. */
export async function startWsHarness(opts: Partial<GatewayOptions> & { hooks?: WebSocketHooks; configRules?: AlwaysAllowRule[] } = {}): Promise<WsHarness> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-ws-')));
  const project = join(base, 'project');
  const state = join(base, 'state');
  mkdirSync(project);
  mkdirSync(state);
  const manager = new PtyManager({ projectRoot: project });
  const { hooks, configRules, ...rest } = opts;
  const gw = await startGateway({
    projectState: state,
    host: '127.0.0.1',
    port: 0,
    accessToken: ACCESS_TOKEN,
    operator: 'ana',
    tokens: [],
    log: () => {},
    websocket: { manager, ...(hooks === undefined ? {} : { hooks }), ...(configRules === undefined ? {} : { configRules }) },
    ...rest,
  });
  return {
    gw,
    manager,
    queue: new ApprovalQueue(state),
    project,
    state,
    url: `ws://127.0.0.1:${gw.port}/ws`,
    close: async () => {
      // As the server stops: the terminals first, so that their sessions end before the endpoint closes.
      await manager.dispose();
      await gw.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until true; fails naming `what` after the deadline. */
export async function until(check: () => boolean, what: string, deadlineMs = DEADLINE_MS): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** A JSON-RPC reply: exactly one of result and error. */
export interface Reply {
  result?: unknown;
  error?: RpcErrorObject;
}

/** How a test client connects: the token by header, cookie or none, and any header overrides. */
export interface ConnectOptions {
  bearer?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

/** A JSON-RPC client over a real WebSocket that records every event and frame size. */
export class RpcClient {
  readonly events: WireEvent[] = [];
  /** Byte length of every frame received. */
  readonly frameSizes: number[] = [];
  /** How many of them were binary messages (`pty.output` for a client that subscribed with `output: 'binary'`). */
  binaryFrames = 0;
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Acknowledge output as a terminal would (every CharCountAckSize bytes); off to play a stalled controller. */
  autoAck = true;
  readonly #unacked = new Map<string, number>();
  #nextId = 1;
  readonly #pending = new Map<number, (r: Reply) => void>();

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data: RawData, isBinary: boolean) => (isBinary ? this.#receiveBinary(data as Buffer) : this.#receive(data as Buffer)));
    ws.on('error', () => {});
  }

  /** Opens a connection; rejects with the HTTP status when the upgrade is refused. */
  static connect(url: string, opts: ConnectOptions = {}): Promise<RpcClient> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
    if (opts.cookie !== undefined) headers.cookie = opts.cookie;
    const ws = new WebSocket(url, { headers });
    const client = new RpcClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        reject(new UpgradeRefused(res.statusCode ?? 0));
        res.resume();
        ws.terminate();
      });
      ws.once('error', reject);
    });
  }

  /** Sends a request and waits for its reply. */
  call(method: string, params?: unknown): Promise<Reply> {
    const id = this.#nextId++;
    const reply = new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, resolve);
      const timer = setTimeout(() => reject(new Error(`no reply to ${method} within ${DEADLINE_MS} ms`)), DEADLINE_MS);
      timer.unref();
    });
    this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return reply;
  }

  /** Sends a request and returns its result, failing the test on an error reply. */
  async ok<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> {
    const r = await this.call(method, params);
    if (r.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
    return r.result as T;
  }

  /** Sends a notification (no reply). */
  notify(method: string, params?: unknown): void {
    this.sendRaw(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  /** Every `pty.output` chunk of a session, decoded and concatenated. */
  output(sessionId: string): string {
    return Buffer.concat(this.outputChunks(sessionId)).toString('utf8');
  }

  outputChunks(sessionId: string): Buffer[] {
    return this.events.flatMap((e) => (e.topic === 'pty.output' && e.data.session_id === sessionId ? [Buffer.from(e.data.data, 'base64')] : []));
  }

  /** Waits until a session's output matches. */
  async waitOutput(sessionId: string, needle: RegExp): Promise<void> {
    await until(() => needle.test(this.output(sessionId)), `output ${String(needle)} from ${sessionId}`);
  }

  /** Waits for an event matching `pred` and returns it. */
  async waitEvent<T extends WireEvent['topic']>(topic: T, pred: (e: Extract<WireEvent, { topic: T }>) => boolean = () => true, deadlineMs = DEADLINE_MS): Promise<Extract<WireEvent, { topic: T }>> {
    const find = (): Extract<WireEvent, { topic: T }> | undefined => this.events.find((e): e is Extract<WireEvent, { topic: T }> => e.topic === topic && pred(e as Extract<WireEvent, { topic: T }>));
    await until(() => find() !== undefined, `a ${topic} event`, deadlineMs);
    return find() as Extract<WireEvent, { topic: T }>;
  }

  close(): void {
    this.ws.close();
  }

  /** Turns acking on again and acknowledges everything received so far. */
  startAcking(): void {
    this.autoAck = true;
    for (const id of this.#unacked.keys()) this.#count(id, 0);
  }

  #count(sessionId: string, chars: number): void {
    let n = (this.#unacked.get(sessionId) ?? 0) + chars;
    while (this.autoAck && n >= FlowControlConstants.CharCountAckSize) {
      this.notify('pty.ack', { session_id: sessionId, chars: FlowControlConstants.CharCountAckSize });
      n -= FlowControlConstants.CharCountAckSize;
    }
    this.#unacked.set(sessionId, n);
  }

  /** A binary `pty.output`: recorded as the same event with its bytes as base64, as a JSON client would see it. */
  #receiveBinary(data: Buffer): void {
    this.frameSizes.push(data.length);
    this.binaryFrames++;
    const e = decodeBinaryOutput(data);
    if (e === null) throw new Error(`a binary message is not a pty.output: ${data.subarray(0, 200).toString('latin1')}`);
    const event = parseWireEvent({ ...e, data: { ...e.data, data: Buffer.from(e.data.data).toString('base64') } });
    if (event === null) throw new Error(`a binary pty.output does not match the registry: ${JSON.stringify(e.data.session_id)}`);
    this.events.push(event);
    this.#count(e.data.session_id, e.data.data.length);
  }

  #receive(data: Buffer): void {
    this.frameSizes.push(data.length);
    const msg = JSON.parse(data.toString('utf8')) as { id?: number; method?: string; params?: unknown } & Reply;
    if (msg.method === 'event') {
      const event = parseWireEvent(msg.params);
      if (event === null) throw new Error(`an event does not match the registry: ${data.toString('utf8').slice(0, 200)}`);
      this.events.push(event);
      if (event.topic === 'pty.output') this.#count(event.data.session_id, Buffer.from(event.data.data, 'base64').length);
      return;
    }
    if (typeof msg.id === 'number') {
      this.#pending.get(msg.id)?.({ ...(msg.result !== undefined ? { result: msg.result } : {}), ...(msg.error !== undefined ? { error: msg.error } : {}) });
      this.#pending.delete(msg.id);
    }
  }
}

/** A refused upgrade, with its HTTP status. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number) {
    super(`upgrade refused with HTTP ${status}`);
  }
}

/** Connects with the access token as a bearer header and subscribes to `topics`. */
export async function operator(h: WsHarness, topics: string[] = ['pty.*'], output?: 'binary' | 'base64'): Promise<RpcClient> {
  const c = await RpcClient.connect(h.url, { bearer: ACCESS_TOKEN });
  if (topics.length > 0) await c.ok('events.subscribe', { topics, ...(output === undefined ? {} : { output }) });
  return c;
}
