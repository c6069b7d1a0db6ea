// The JSON-RPC `error` member as a schema, for clients and tests that check what the
// gateway answers; kept apart from the codes so the browser bundle needs no zod.
import { z } from 'zod';
import { RPC_ERROR_NAMES } from './rpc-errors.js';

/** A JSON-RPC error object: `data.name` is a stable name, `data.reason` refines it. */
export const RpcErrorShape = z.strictObject({
  code: z.number().int(),
  message: z.string(),
  data: z.strictObject({ name: z.enum(RPC_ERROR_NAMES as [string, ...string[]]), reason: z.string().optional() }),
});
