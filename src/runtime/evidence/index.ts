// Evidence bundles: sealed in-toto statements in DSSE envelopes, anchored to the audit
// log's signed checkpoints, that anyone holding the project's public key can verify offline.
export { sealEvidence, type EvidenceBundle } from './seal.js';
export { PAYLOAD_TYPE, type EvidenceStatement, type SealInput } from './statement.js';
export { exportEvidence, listEvidence, loadEvidence, verifyEvidenceFile } from './store.js';
export { verifyEvidence } from './verify.js';
