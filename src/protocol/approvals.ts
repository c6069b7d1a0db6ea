// The approval shapes on the wire: a pending request as `approvals.list` and
// `approvals.changed` carry it, with what an "always" answer would add a rule for.
import { z } from 'zod';

/** What an "always" rule made from the call would match (core/approvals/always-scope.ts `AlwaysTarget`). */
export const AlwaysTarget = z.strictObject({
  tool: z.string(),
  on: z.enum(['paths', 'command', 'input']),
  paths: z.array(z.string()),
});
export type AlwaysTarget = z.infer<typeof AlwaysTarget>;

/** A pending approval as the queue lists it (the nonce is included: a resolver echoes it). */
export const PendingApproval = z.strictObject({
  id: z.string(),
  nonce: z.string(),
  session_id: z.string(),
  agent: z.string(),
  tool: z.string(),
  summary: z.string(),
  /** Why a person is asked: the classifier's reason, or that no rule allows the call. Absent in older records. */
  why: z.string().optional(),
  /** ISO 8601. */
  created_at: z.string(),
  /** ISO 8601. */
  expires_at: z.string(),
  /** The process waiting for the answer (a hook, or the supervisor for a warm hook). */
  pid: z.number().int(),
  /** Names the one wait and its heartbeat; absent in records filed by an older Gatehouse. */
  waiter: z.string().optional(),
  /** What "always" would add a rule for: null, no rule; absent, filed by an older Gatehouse. */
  always: AlwaysTarget.nullable().optional(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

/** `approvals.list`'s result and `approvals.changed`'s payload: oldest first, as much as fits a frame. */
export const PendingList = z.strictObject({ pending: z.array(PendingApproval), omitted: z.number().int() });
export type PendingList = z.infer<typeof PendingList>;
