// How a JSON-RPC method is declared: the capability it needs, the schema of its params
// (validated at the edge, so handlers get plain typed values) and its handler.
import type { z } from 'zod';
import type { AlwaysAllowRule } from '../../core/approvals/always-allow.js';
import type { ApprovalQueue } from '../../runtime/approvals/index.js';
import type { Connection } from './connection.js';
import type { Capability } from '../credentials.js';
import { RpcError } from './errors.js';
import type { PtyHost, WebSocketHooks } from './pty-host.js';
import type { SessionHub } from './session-hub.js';

/** The project whose always-allow rules `approvals.rules` lists and `approvals.revoke_rule` revokes. */
interface AlwaysRulesSource {
  projectState: string;
  config: readonly AlwaysAllowRule[];
}

/** What a handler can reach. */
export interface MethodContext {
  conn: Connection;
  hub: SessionHub;
  manager: PtyHost;
  queue: ApprovalQueue;
  /** Where the always-allow rules live, and the config's own (listed, never revoked here). */
  rules: AlwaysRulesSource;
  hooks: WebSocketHooks;
  /** The project state folder whose recorded sessions `sessions.*` reads. */
  projectState: string;
  /** Call after a connection's subscriptions changed (starts or stops the approvals watch). */
  subscriptionsChanged(): void;
}

/** A handler's outcome: a result to send, or an RpcError (returned, never thrown). */
export type Outcome = unknown;

/** A declared method, ready to dispatch. */
export interface Method {
  /** Needed to call it; null means any authenticated connection. */
  capability: Capability | null;
  run(ctx: MethodContext, params: unknown): Outcome | Promise<Outcome>;
}

/** The first schema issue as a sentence naming the parameter. */
function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'the params are not valid';
  const where = issue.path.length > 0 ? `params.${issue.path.join('.')}` : 'params';
  return `${where}: ${issue.message}`;
}

/**
 * Declares a method; params are parsed with `schema` (absent params mean `{}`).
 * @example defineMethod('pty', z.strictObject({ session_id: z.string() }), (ctx, p) => ctx.manager.get(p.session_id))
 */
export function defineMethod<S extends z.ZodType>(capability: Capability | null, schema: S, handle: (ctx: MethodContext, params: z.output<S>) => Outcome | Promise<Outcome>): Method {
  return {
    capability,
    run: (ctx, raw) => {
      const parsed = schema.safeParse(raw ?? {});
      if (!parsed.success) return new RpcError('invalid_params', describe(parsed.error));
      return handle(ctx, parsed.data);
    },
  };
}
