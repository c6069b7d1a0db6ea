// The JSON-RPC error codes of the `/ws` endpoint, in one table: the numbers and names are
// part of the wire protocol, so a client can branch on them; the messages say what to do.
import { NO_SUCH_SESSION } from '../pty/index.js';

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
} as const;

/** The stable name of an error, e.g. `no_such_session`. */
export type RpcErrorName = keyof typeof RPC_ERRORS;

/** A JSON-RPC error object; `data.name` repeats the stable name, `data.reason` refines it. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data: { name: RpcErrorName; reason?: string };
}

/** An error a method handler returns (never throws): the wire object is built from it. */
export class RpcError {
  constructor(
    readonly name: RpcErrorName,
    readonly message: string,
    readonly reason?: string,
  ) {}

  /** The JSON-RPC `error` member. */
  toJSON(): RpcErrorObject {
    const data = this.reason === undefined ? { name: this.name } : { name: this.name, reason: this.reason };
    return { code: RPC_ERRORS[this.name].code, message: this.message, data };
  }
}

export { NO_SUCH_SESSION };

/** The `no_such_session` error, with the message the protocol promises. */
export function noSuchSession(): RpcError {
  return new RpcError('no_such_session', NO_SUCH_SESSION);
}

/**
 * WebSocket close codes the endpoint uses (4000–4999 are for applications). A browser
 * sees them in `CloseEvent.code`.
 */
export const CLOSE_CODES = {
  /** No valid token within the auth window, or a call before auth. */
  unauthorized: 4401,
  /** The client stopped reading and its must-deliver backlog hit the hard cap. */
  too_slow: 4408,
  /** The gateway is shutting down (the standard "going away"). */
  going_away: 1001,
} as const;
