// One end of a JSON-RPC 2.0 conversation over any transport: the owner hands it each frame that
// arrives and a function that sends one; it numbers calls, matches answers, serves the other side's calls.
import { JsonRpcError, RPC_ERRORS, type JsonRpcErrorObject } from './rpc-errors.js';

/**
 * The longest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days): a longer one fires at
 * once, so a deadline past it (or `Infinity`) means "wait until answered, aborted or closed".
 */
const MAX_TIMER_MS = 2_147_483_647;

/** The code of an error answer that carries no integer `code`: 0 is in no range JSON-RPC or RPC_ERRORS uses, so no branch on a known code takes it. */
export const NO_ERROR_CODE = 0;

/** How much of an unreadable error answer its message quotes: enough to recognise it, too little to flood a log line. */
const QUOTE_CHARS = 200;

/** Serves one incoming request: returns the result (or a promise of it); throws a {@link JsonRpcError} to answer with that error. */
export type RequestHandler = (params: unknown) => unknown;

/** What a peer needs from its owner. */
export interface JsonRpcPeerOptions {
  /** The other side as a message names it: "the gateway", "codex app-server". */
  remote: string;
  /** Writes one frame (a JSON text, no delimiter) to the transport; a throw closes the peer. */
  send: (frame: string) => void;
  /** How long a call waits for its answer unless the call says otherwise. */
  timeoutMs: number;
  onNotification?: (method: string, params: unknown) => void;
  /** The calls the other side may make, by method; any other is answered `method_not_found`. */
  handlers?: Readonly<Record<string, RequestHandler>>;
  /** Leaves `"jsonrpc": "2.0"` out of sent frames: Codex's app-server speaks JSON-RPC 2.0 without that member. */
  omitVersion?: boolean;
}

/** Per call: an abort signal, and a deadline other than the peer's. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

type Id = string | number;

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /** Clears the call's timer and abort listener. */
  release: () => void;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function quote(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
}

/** Reads an error answer of any shape: a well-formed object, a bare string (JSON-RPC 1.0 style), or anything else, quoted. */
function remoteError(e: unknown, remote: string, method: string): JsonRpcError {
  const err = isRecord(e) ? e : {};
  const code = typeof err.code === 'number' && Number.isSafeInteger(err.code) ? err.code : NO_ERROR_CODE;
  const given = typeof e === 'string' ? e : err.message;
  const message = typeof given === 'string' && given !== '' ? given : `${remote} refused ${method} without a message: ${quote(e)}`;
  return new JsonRpcError(code, message, err.data);
}

function abortError(signal: AbortSignal, method: string): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(`${method} was cancelled`, { cause: signal.reason });
}

function errorObject(name: 'invalid_request' | 'method_not_found' | 'internal', message: string): JsonRpcErrorObject {
  return { code: RPC_ERRORS[name].code, message, data: { name } };
}

/**
 * A transport-agnostic JSON-RPC 2.0 peer. Every call ends: answered, refused ({@link JsonRpcError}),
 * timed out, aborted, or failed by {@link close}; no timer outlives its call.
 * @example const peer = new JsonRpcPeer({ remote: 'the gateway', send: (f) => ws.send(f), timeoutMs: 15_000 }); ws.onmessage = (e) => peer.receive(e.data); await peer.request('pty.list');
 */
export class JsonRpcPeer {
  readonly #opts: JsonRpcPeerOptions;
  /** A Map, not the record itself: a method named `constructor` or `__proto__` must find nothing. */
  readonly #handlers: ReadonlyMap<string, RequestHandler>;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed: string | null = null;

  constructor(opts: JsonRpcPeerOptions) {
    this.#opts = opts;
    this.#handlers = new Map(Object.entries(opts.handlers ?? {}));
  }

  /** Calls `method`; rejects with a {@link JsonRpcError} when refused, else an Error that says what ended the wait. */
  request<T>(method: string, params?: unknown, options: RequestOptions = {}): Promise<T> {
    if (this.#closed !== null) return Promise.reject(new Error(this.#closed));
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(abortError(signal, method));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      // Serialised first: params that cannot be sent leave nothing registered.
      const frame = this.#frame(params === undefined ? { id, method } : { id, method, params });
      const timeoutMs = options.timeoutMs ?? this.#opts.timeoutMs;
      const timer =
        timeoutMs <= MAX_TIMER_MS ? setTimeout(() => this.#take(id)?.reject(new Error(`${this.#opts.remote} did not answer ${method} within ${timeoutMs / 1000} s`)), timeoutMs) : undefined;
      const onAbort = (): void => this.#take(id)?.reject(abortError(signal as AbortSignal, method));
      signal?.addEventListener('abort', onAbort, { once: true });
      const release = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, release });
      this.#transmit(frame);
    });
  }

  /** Sends a notification (no answer, nothing to wait for); dropped once closed. */
  notify(method: string, params?: unknown): void {
    if (this.#closed === null) this.#transmit(this.#frame(params === undefined ? { method } : { method, params }));
  }

  /**
   * Handles one frame from the other side. Frames that are not JSON, not one object, or answers
   * to no call in flight are dropped without a reply: nothing says what they meant to answer.
   */
  receive(text: string): void {
    if (this.#closed !== null) return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    // Batches are neither sent nor served: no answer of ours can come as one.
    if (!isRecord(msg)) return;
    if (Object.hasOwn(msg, 'method')) this.#incoming(msg);
    else this.#answered(msg);
  }

  /** Fails every call in flight, and every later one, with `reason`; the first reason given stays. */
  close(reason: string): void {
    if (this.#closed !== null) return;
    this.#closed = reason;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      p.release();
      p.reject(new Error(reason));
    }
  }

  #incoming(msg: Record<string, unknown>): void {
    const { method, id } = msg;
    // A notification is never answered, not even one that makes no sense.
    if (!Object.hasOwn(msg, 'id')) {
      if (typeof method === 'string') this.#opts.onNotification?.(method, msg.params);
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') this.#refuse(null, 'id must be a string or a number');
    else if (typeof method !== 'string') this.#refuse(id, 'method must be a string');
    else void this.#serve(id, method, msg.params);
  }

  #refuse(id: Id | null, message: string): void {
    this.#transmit(this.#frame({ id, error: errorObject('invalid_request', message) }));
  }

  async #serve(id: Id, method: string, params: unknown): Promise<void> {
    const handler = this.#handlers.get(method);
    let body: object;
    if (handler === undefined) {
      body = {
        id,
        error: errorObject(
          'method_not_found',
          `no method ${JSON.stringify(method)} here: ${this.#handlers.size === 0 ? 'this client serves no calls' : `use one of ${[...this.#handlers.keys()].join(', ')}`}`,
        ),
      };
    } else {
      try {
        body = { id, result: (await handler(params)) ?? null };
      } catch (err) {
        body = { id, error: err instanceof JsonRpcError ? err.toJSON() : errorObject('internal', `${method} failed in this client`) };
      }
    }
    // Closed while the handler ran: the transport that asked is gone.
    if (this.#closed === null) this.#transmit(this.#frame(body));
  }

  #answered(msg: Record<string, unknown>): void {
    // Only numbers are ours. A null id answers a frame the other side could not read: no call to fail.
    if (typeof msg.id !== 'number') return;
    // Unknown: a late answer to a call that timed out or was aborted, a repeat, or an answer to nothing.
    const p = this.#take(msg.id);
    if (p === undefined) return;
    // `"error": null` beside a result is JSON-RPC 1.0's way of saying "no error".
    if (msg.error !== undefined && msg.error !== null) p.reject(remoteError(msg.error, this.#opts.remote, p.method));
    else if (Object.hasOwn(msg, 'result')) p.resolve(msg.result);
    else p.reject(new Error(`${this.#opts.remote} answered ${p.method} with neither a result nor an error`));
  }

  #take(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    if (p === undefined) return undefined;
    this.#pending.delete(id);
    p.release();
    return p;
  }

  #frame(body: object): string {
    return JSON.stringify(this.#opts.omitVersion === true ? body : { jsonrpc: '2.0', ...body });
  }

  #transmit(frame: string): void {
    try {
      this.#opts.send(frame);
    } catch (err) {
      // A transport that cannot send cannot carry the answers still owed either.
      this.close(`cannot send to ${this.#opts.remote}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
