// A JSON-RPC 2.0 client over the gateway's one WebSocket: reconnects with backoff,
// signs in again on every new connection, and tells the page when it is ready.
import { decodeBinaryOutput } from '../protocol/binary-output.js';
import { CLOSE_CODES } from '../protocol/close-codes.js';
import { JsonRpcPeer } from '../protocol/json-rpc-peer.js';
import { JsonRpcError, RPC_ERRORS } from '../protocol/rpc-errors.js';

/** The connection as the page shows it. */
export type ConnectionState = 'connecting' | 'ready' | 'offline' | 'unauthorized';

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

/** Who the messages say did not answer or refused. */
const REMOTE = 'the gateway';

/**
 * One logical connection to `/ws` that survives gateway restarts and network blips.
 * @example const rpc = new RpcClient({ url, token: null, onReady, onNotification, onState }); rpc.start();
 */
export class RpcClient {
  readonly #opts: RpcClientOptions;
  #ws: WebSocket | null = null;
  /** The open socket's peer: each connection starts afresh, so no answer on one settles a call made on another. */
  #peer: JsonRpcPeer | null = null;
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

  /** Calls `method`; rejects with a {@link JsonRpcError} when the gateway refuses, or an Error when not connected or unanswered. */
  call<T>(method: string, params?: unknown): Promise<T> {
    const peer = this.#peer;
    if (peer === null || this.#ws?.readyState !== WebSocket.OPEN) return Promise.reject(new Error('not connected to the gateway: retrying'));
    return peer.request<T>(method, params);
  }

  /** Sends a notification (no answer, nothing to wait for); dropped when not connected. */
  notify(method: string, params: unknown): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#peer?.notify(method, params);
  }

  #connect(): void {
    this.#retry = null;
    this.#opts.onState('connecting', '');
    const ws = new WebSocket(this.#opts.url);
    // Binary messages are `pty.output` (asked for with `events.subscribe {output: 'binary'}`): decoded in place, no Blob read.
    ws.binaryType = 'arraybuffer';
    this.#ws = ws;
    ws.onopen = () => {
      if (this.#ws !== ws) return;
      const peer = new JsonRpcPeer({ remote: REMOTE, send: (frame) => ws.send(frame), timeoutMs: CALL_TIMEOUT_MS, onNotification: (method, params) => this.#opts.onNotification(method, params) });
      this.#peer = peer;
      ws.onmessage = (ev: MessageEvent) => {
        if (typeof ev.data === 'string') peer.receive(ev.data);
        else if (ev.data instanceof ArrayBuffer) {
          const event = decodeBinaryOutput(new Uint8Array(ev.data));
          if (event !== null) this.#opts.onNotification('event', event);
        }
      };
      void this.#opened(ws);
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
      if (this.#ws === ws && !(err instanceof JsonRpcError && err.code === RPC_ERRORS.unauthorized.code)) ws.close(CLOSE_CODES.setup_failed, 'setup failed');
    }
  }

  #closed(ws: WebSocket, ev: CloseEvent): void {
    if (this.#ws !== ws) return;
    this.#ws = null;
    this.#peer?.close('the connection to the gateway closed');
    this.#peer = null;
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
