// The errors a `/ws` method handler returns, built on the wire codes of protocol/rpc-errors.ts
// (numbers and names a client branches on); the messages say what to do.
import { CLOSE_CODES } from '../../protocol/close-codes.js';
import { RPC_ERRORS, type RpcErrorName, type RpcErrorObject } from '../../protocol/rpc-errors.js';
import { NO_SUCH_SESSION } from '../pty/index.js';

export { RPC_ERRORS };
export type { RpcErrorName, RpcErrorObject };

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

export { CLOSE_CODES };
