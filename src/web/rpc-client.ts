// A JSON-RPC 2.0 client over the gateway's one WebSocket: reconnects with backoff,
// signs in again on every new connection, and tells the page when it is ready.
import { CLOSE_CODES } from '../protocol/close-codes.js';
import { isRpcErrorName, type RpcErrorName } from '../protocol/rpc-errors.js';

/** The connection as the page shows it. */
export type ConnectionState = 'connecting' | 'ready' | 'offline' | 'unauthorized';

/** An error answer from the gateway; `errorName` is the stable name in `error.data.name` (protocol/rpc-errors.ts). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly errorName: RpcErrorName | 'unknown',
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** What the client needs from the page. */
export interface RpcClientOptions {
  url: string;
  /** Sent as `auth {token}` first; null relies on the cookie the sign-in link set. */
  token: string | null;
  /** Runs after every (re)connect and sign-in: subscribe, reload lists, re-attach. */
  onReady: () => Promise<void>;
  onNotification: (method: string, params: unknown) => void;
  onState: (state: ConnectionState, detail: string) => void;
}

/** First retry comes quickly: a gateway restart takes about this long. */
const RECONNECT_MIN_MS = 250;
/** Retries back off to this, so a stopped gateway costs one attempt per few seconds. */
const RECONNECT_MAX_MS = 5_000;
/** A call unanswered this long is failed, so a button never spins forever. */
const CALL_TIMEOUT_MS = 15_000;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toRpcError(e: unknown): RpcError {
  const err = isRecord(e) ? e : {};
  const data = isRecord(err.data) ? err.data : {};
  return new RpcError(
    typeof err.code === 'number' ? err.code : 0,
    typeof err.message === 'string' ? err.message : 'the gateway refused the call',
    typeof data.name === 'string' && isRpcErrorName(data.name) ? data.name : 'unknown',
    typeof data.reason === 'string' ? data.reason : undefined,
  );
}

/**
 * One logical connection to `/ws` that survives gateway restarts and network blips.
 * @example const rpc = new RpcClient({ url, token: null, onReady, onNotification, onState }); rpc.start();
 */
export class RpcClient {
  readonly #opts: RpcClientOptions;
  readonly #pending = new Map<number, Pending>();
  #ws: WebSocket | null = null;
  #nextId = 1;
  #delayMs = RECONNECT_MIN_MS;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(opts: RpcClientOptions) {
    this.#opts = opts;
  }

  /** Connects (and keeps reconnecting until {@link stop}). */
  start(): void {
    this.#stopped = false;
    this.#connect();
  }

  /** Closes for good and fails the calls in flight. */
  stop(): void {
    this.#stopped = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#ws?.close(CLOSE_CODES.normal);
  }

  /** The token the page signed in with, or null when it relies on the cookie. */
  get token(): string | null {
    return this.#opts.token;
  }

  /** Uses `token` from now on (null: the cookie), and reconnects at once to sign in with it. */
  signIn(token: string | null): void {
    this.#opts.token = token;
    this.#delayMs = RECONNECT_MIN_MS;
    if (this.#retry !== null) clearTimeout(this.#retry);
    if (this.#ws !== null) this.#ws.close(CLOSE_CODES.normal);
    else this.#connect();
  }

  /** Calls `method`; rejects with an {@link RpcError}, or an Error when not connected. */
  call<T>(method: string, params?: unknown): Promise<T> {
    const ws = this.#ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('not connected to the gateway: retrying'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method} got no answer within ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      ws.send(JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Sends a notification (no answer, nothing to wait for); dropped when not connected. */
  notify(method: string, params: unknown): void {
    const ws = this.#ws;
    if (ws !== null && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  #connect(): void {
    this.#retry = null;
    this.#opts.onState('connecting', '');
    const ws = new WebSocket(this.#opts.url);
    this.#ws = ws;
    ws.onopen = () => void this.#opened(ws);
    ws.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data === 'string') this.#received(ev.data);
    };
    ws.onclose = (ev: CloseEvent) => this.#closed(ws, ev);
  }

  async #opened(ws: WebSocket): Promise<void> {
    try {
      if (this.#opts.token !== null) await this.call('auth', { token: this.#opts.token });
      await this.#opts.onReady();
      if (this.#ws !== ws) return;
      this.#delayMs = RECONNECT_MIN_MS;
      this.#opts.onState('ready', '');
    } catch (err) {
      // The close that follows (4401 for a refused token) says what to show; make sure it comes.
      if (this.#ws === ws && !(err instanceof RpcError && err.errorName === 'unauthorized')) ws.close(CLOSE_CODES.setup_failed, 'setup failed');
    }
  }

  #received(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(msg)) return;
    if (typeof msg.method === 'string' && msg.id === undefined) {
      this.#opts.onNotification(msg.method, msg.params);
      return;
    }
    if (typeof msg.id !== 'number') return;
    const p = this.#pending.get(msg.id);
    if (p === undefined) return;
    this.#pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error !== undefined) p.reject(toRpcError(msg.error));
    else p.resolve(msg.result);
  }

  #closed(ws: WebSocket, ev: CloseEvent): void {
    if (this.#ws !== ws) return;
    this.#ws = null;
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('the connection to the gateway closed'));
    }
    this.#pending.clear();
    if (this.#stopped) return;
    if (ev.code === CLOSE_CODES.unauthorized) {
      this.#opts.onState('unauthorized', 'Not signed in: open the dashboard URL that `gatehouse serve` printed, or paste the token from it (after ?token=) here.');
      // A new server start brings a new token; keep trying slowly in case the cookie is renewed in another tab.
      this.#delayMs = RECONNECT_MAX_MS;
    } else {
      this.#opts.onState('offline', ev.reason === '' ? 'gateway unreachable' : ev.reason);
    }
    const jitter = Math.random() * this.#delayMs * 0.2;
    this.#retry = setTimeout(() => this.#connect(), this.#delayMs + jitter);
    this.#delayMs = Math.min(RECONNECT_MAX_MS, this.#delayMs * 2);
  }
}
