// Evidence bundles: sealed in-toto statements in DSSE envelopes, anchored to the audit
// log's signed checkpoints, that anyone holding the project's public key can verify offline.
export { getBlob } from './blob-read.js';
export { putBlob } from './blobs.js';
export { EVIDENCE_ID_RE, sealEvidence, type EvidenceBundle } from './seal.js';
export {
  PAYLOAD_TYPE,
  PREDICATE_TYPE,
  STATEMENT_TYPE,
  type EvidenceKind,
  type EvidencePredicate,
  type EvidenceStatement,
  type EvidenceVerdict,
  type EvidenceWhere,
  type SealInput,
} from './statement.js';
export { EXPORT_FORMAT, exportEvidence, listEvidence, loadEvidence, verifyEvidenceFile, type EvidenceExport, type EvidenceSummary, type LoadedEvidence } from './store.js';
export { verifyEvidence, type BlobSource, type EvidenceCheck } from './verify.js';
