// The approval queue's public names: one queue on disk shared by the hook, HTTP, CLI and
// TUI surfaces. Everything else in this folder is an implementation detail.
export { ApprovalQueue, RESOLVED_RETENTION_MS } from './queue.js';
export { APPROVAL_DECISIONS, APPROVAL_ID_RE, isApprovalId, type ApprovalDecision, type EnqueueInput, type PendingApproval, type Resolution, type ResolveError, type ResolveResult } from './record.js';
export { SWEEPER_PRINCIPAL, TTL_EXPIRY_PRINCIPAL, WITHDRAWN_PRINCIPAL } from './system-principals.js';
