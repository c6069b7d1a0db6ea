// JSON-RPC error objects: the codes of the `/ws` endpoint in one table (the numbers and names
// are part of the wire protocol, so a client can branch on them), and the Error a call rejects with.

/**
 * Every error the endpoint answers with. `-32700…-32603` are JSON-RPC 2.0's own; the
 * `-320xx` codes are ours (the range the spec reserves for servers). Codes and names are
 * stable: add new ones, never renumber.
 */
export const RPC_ERRORS = {
  parse_error: { code: -32700, meaning: 'the frame is not JSON' },
  invalid_request: { code: -32600, meaning: 'not a JSON-RPC 2.0 request object (batches and binary frames are refused)' },
  method_not_found: { code: -32601, meaning: 'no such method' },
  invalid_params: { code: -32602, meaning: 'the params do not match the method' },
  internal: { code: -32603, meaning: 'the gateway failed unexpectedly; see its log' },
  unauthorized: { code: -32001, meaning: 'no valid token yet: the connection is closed with 4401 right after' },
  forbidden: { code: -32002, meaning: 'the token is valid but lacks the capability (e.g. a scoped token and pty.*)' },
  frame_too_large: { code: -32003, meaning: 'a frame or a pty.input over 64 KiB: nothing was done' },
  no_such_session: { code: -32004, meaning: 'no such session' },
  not_controller: { code: -32005, meaning: 'input and resize need control: pty.attach with control: true' },
  spawn_failed: { code: -32006, meaning: 'the PTY manager refused the spawn (cwd outside the project, bad geometry, …)' },
  pty_refused: { code: -32007, meaning: 'the PTY manager refused the call (e.g. the process has exited)' },
  approval_refused: { code: -32008, meaning: 'the approval queue refused the resolution; data.reason holds its code' },
  session_failed: { code: -32009, meaning: 'starting the Gatehouse session for pty.spawn {session} failed' },
  unavailable: { code: -32010, meaning: 'the feature is not configured on this gateway' },
  rules_unreadable: { code: -32011, meaning: 'the always-allow rules file cannot be read; the message says how to recover' },
  revoke_refused: { code: -32012, meaning: 'the rule cannot be revoked: unknown id, or a config rule (edit the config)' },
  no_such_approval: { code: -32013, meaning: 'no such approval is waiting (answered and pruned, or never filed), or its record is unreadable' },
} as const;

/** The stable name of an error, e.g. `no_such_session`. */
export type RpcErrorName = keyof typeof RPC_ERRORS;

/** Every error name, in table order. */
export const RPC_ERROR_NAMES = Object.keys(RPC_ERRORS) as RpcErrorName[];

/** A JSON-RPC 2.0 error object as any peer sends it: `data` is free-form. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The error object the `/ws` endpoint sends; `data.name` repeats the stable name, `data.reason` refines it. */
export interface RpcErrorObject extends JsonRpcErrorObject {
  data: { name: RpcErrorName; reason?: string };
}

/**
 * A JSON-RPC error answer as an Error: what a call rejects with when the other side answers
 * with an error, and what a request handler throws to answer with one.
 * @example if (err instanceof JsonRpcError && err.code === RPC_ERRORS.unauthorized.code) showSignIn();
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }

  /** The wire `error` member; `data` is left out when there is none. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}
