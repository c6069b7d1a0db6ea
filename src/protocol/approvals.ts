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

/** What a card shows beyond the summary (core/approvals/detail.ts `ApprovalDetail`). */
export const ApprovalDetail = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('diff'),
    files: z.array(z.strictObject({ path: z.string(), diff: z.string(), added: z.number().int(), removed: z.number().int(), note: z.string().nullable() })),
    truncated: z.boolean(),
  }),
  z.strictObject({ kind: z.literal('shell'), command: z.string(), description: z.string().nullable(), cwd: z.string(), why: z.string(), rule: z.string() }),
  z.strictObject({ kind: z.literal('input'), json: z.string(), truncated: z.boolean() }),
]);
export type ApprovalDetail = z.infer<typeof ApprovalDetail>;

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
  /** The card's detail: over HTTP in the list; over the WebSocket fetched alone (`approvals.detail`), so the list stays small. */
  detail: ApprovalDetail.optional(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

/** `approvals.list`'s result and `approvals.changed`'s payload: oldest first, as much as fits a frame. */
export const PendingList = z.strictObject({ pending: z.array(PendingApproval), omitted: z.number().int() });
export type PendingList = z.infer<typeof PendingList>;
