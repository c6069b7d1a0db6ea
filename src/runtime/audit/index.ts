// The audit chain's public surface: the log, its verifier, the event registry and the
// key-rotation endorsement helpers.
export { AuditLog, type ConsistencyProof, type InclusionProof } from './log.js';
export { verifyAudit, type VerifyReport } from './verify.js';
export { AUDIT_EVENT_TYPES, isAuditEventType, validateEventData, type AuditEventDataMap, type AuditEventType } from './events.js';
export { ACTOR_PATTERN, type AppendInput, type AuditEvent } from './record.js';
export type { StoredCheckpoint } from './checkpoints.js';
export { keyRotatedData, rotationEndorsement, verifyRotationEndorsement } from './rotation.js';
export { LOCK_TIMEOUT_MS } from './lock.js';
