// The audit chain's public surface: the log, its verifier, the event registry and the
// key-rotation endorsement helpers.
export { AuditLog } from './log.js';
export { verifyAudit, type VerifyReport } from './verify.js';
export { verifyAuditParallel, verifyThreads } from './verify-parallel.js';
export { type AuditEventType } from './events.js';
export { type AuditEvent } from './record.js';
export type { StoredCheckpoint } from './checkpoints.js';
