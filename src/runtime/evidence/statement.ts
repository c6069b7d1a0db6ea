// The evidence statement: an in-toto Statement v1 whose subjects are the digests of the
// evidence blobs and whose predicate records one Gatehouse decision and its audit anchor.
import { sandboxRecord, type SandboxRecord } from '../../core/sandbox.js';
import { canonicalJson } from '../../core/crypto/canonical-json.js';
import { claimAgrees, type AgentClaim } from '../../core/agent-claim.js';
import type { Policy } from '../../core/policy.js';
import type { ProducerResult } from '../producers.js';
import type { Change } from '../scope-baseline.js';
import { sha256Hex } from '../../core/crypto/sha256.js';

/** in-toto Statement layer, version 1 (in-toto/attestation spec/v1/statement.md). */
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** Our predicate's type URI; the major version is in the path, as in-toto's versioning rules ask. */
export const PREDICATE_TYPE = 'https://gatehouse.dev/evidence/v1';
/** DSSE payload type of an in-toto statement (in-toto/attestation spec/v1/envelope.md). */
export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/** Subject names: one per producer output, the scope listing and the policy. */
export const producerSubject = (name: string): string => `producer/${name}/output`;
const SCOPE_SUBJECT = 'scope/changes.json';
const POLICY_SUBJECT = 'policy.json';

/** Where the decision was taken: inside a hook while the agent runs, or at `session end`. */
export type EvidenceWhere = 'in_session' | 'end_of_session';
export const EVIDENCE_WHERE: readonly EvidenceWhere[] = ['in_session', 'end_of_session'];
/** What was decided: whether a turn may complete, or that a write was refused. */
export type EvidenceKind = 'completion_verdict' | 'write_refused';
export const EVIDENCE_KINDS: readonly EvidenceKind[] = ['completion_verdict', 'write_refused'];
/** The decision. */
export type EvidenceVerdict = 'pass' | 'fail' | 'unverified' | 'halt' | 'refused';
export const EVIDENCE_VERDICTS: readonly EvidenceVerdict[] = ['pass', 'fail', 'unverified', 'halt', 'refused'];

/** One in-toto subject (a ResourceDescriptor with a name and a sha256 digest). */
interface Subject {
  name: string;
  digest: { sha256: string };
}

/** One producer run as the predicate records it; its output is the subject `producer/<name>/output`. */
interface PredicateProducer {
  name: string;
  kind: string;
  required: boolean;
  status: ProducerResult['status'];
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  output_digest: string;
  output_bytes: number;
  truncated: boolean;
}

/** Ties a statement to a signed audit checkpoint through its `evidence_sealed` event. */
export interface EvidenceAnchor {
  checkpoint: { note: string; tree_size: number; root: string };
  leaf_index: number;
  /** Sibling hashes (hex) from the leaf up, RFC 6962 / RFC 9162 order. */
  inclusion_proof: string[];
  /** The audit event's canonical JSON line: the Merkle leaf data. */
  event_line: string;
}

/** The `https://gatehouse.dev/evidence/v1` predicate; the same for every kind and place. */
interface EvidencePredicate {
  receipt_id: string;
  session_id: string;
  agent: string;
  /**
   * Whether the agent ran inside an OS sandbox. False means any process of the same user, the
   * agent included, could read the signing key: a bundle from such a session proves what
   * Gatehouse decided only as far as the agent did not forge it.
   */
  sandboxed: boolean;
  /** The sandbox (engine, version, network, writable paths); absent or null when unsandboxed. */
  sandbox?: SandboxRecord | null;
  where: EvidenceWhere;
  kind: EvidenceKind;
  verdict: EvidenceVerdict;
  decided_by: string | null;
  reason: string | null;
  verifiers: { name: string; outcome: string; reason?: string }[];
  producers: PredicateProducer[];
  /** The refused write (kind `write_refused`); null otherwise. */
  write: { tool: string; targets: string[]; rule: string } | null;
  /** What the agent said about its work, and whether that matches the verdict; null when it said nothing. */
  agent_claim: { claim: AgentClaim; agrees_with_verdict: boolean } | null;
  sealed_at: string;
  /** Absent only while the statement is being sealed (its digest is what the audit event records). */
  anchor?: EvidenceAnchor;
}

/** An evidence statement. */
export interface EvidenceStatement {
  _type: typeof STATEMENT_TYPE;
  subject: Subject[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: EvidencePredicate;
}

/** What a caller knows about one decision, raw; {@link sealEvidence} turns it into a statement. */
export interface SealInput {
  where: EvidenceWhere;
  kind: EvidenceKind;
  verdict: EvidenceVerdict;
  decided_by: string | null;
  reason: string | null;
  verifiers: { name: string; outcome: string; reason?: string }[];
  /** Raw producer results, output text included (each output becomes a blob). */
  producers: ProducerResult[];
  /** Files changed since the baseline and those outside the allowlist; null when the scope was not computed (e.g. a refused write). */
  scope: { changed: Change[]; outside: Change[] } | null;
  /** The session policy; also the source of `session_id` and `agent`. */
  policy: Policy;
  write?: { tool: string; targets: string[]; rule: string } | null;
  agent_claim: AgentClaim | null;
  /** Clock override for tests. */
  now?: Date;
}

/** A blob to store, and the subject it becomes. */
export interface PendingBlob {
  name: string;
  data: Buffer;
}

/** The blobs one decision produces, in subject order. */
export function evidenceBlobs(input: SealInput): PendingBlob[] {
  const blobs = input.producers.map((p) => ({ name: producerSubject(p.name), data: Buffer.from(p.output, 'utf8') }));
  if (input.scope !== null) blobs.push({ name: SCOPE_SUBJECT, data: Buffer.from(canonicalJson({ changed: input.scope.changed, outside: input.scope.outside }), 'utf8') });
  blobs.push({ name: POLICY_SUBJECT, data: Buffer.from(canonicalJson(input.policy), 'utf8') });
  return blobs;
}

/**
 * The statement for a decision, without its anchor; `digests` maps subject names to the blob digests.
 * @example const st = buildStatement(id, input, sealedAt, new Map(blobs.map((b) => [b.name, putBlob(state, b.data)])))
 */
export function buildStatement(receiptId: string, input: SealInput, sealedAt: string, digests: Map<string, string>): EvidenceStatement {
  const digestOf = (name: string): string => {
    const d = digests.get(name);
    if (d === undefined) throw new Error(`no digest for evidence subject ${name}`);
    return d;
  };
  const kinds = new Map(input.policy.producers.map((p) => [p.name, p.kind]));
  const predicate: EvidencePredicate = {
    receipt_id: receiptId,
    session_id: input.policy.session_id,
    agent: input.policy.agent,
    sandboxed: input.policy.sandboxed === true,
    sandbox: input.policy.sandbox ? sandboxRecord(input.policy.sandbox) : null,
    where: input.where,
    kind: input.kind,
    verdict: input.verdict,
    decided_by: input.decided_by,
    reason: input.reason,
    verifiers: input.verifiers.map((v) => (v.reason === undefined ? { name: v.name, outcome: v.outcome } : { name: v.name, outcome: v.outcome, reason: v.reason })),
    producers: input.producers.map((p) => ({
      name: p.name,
      kind: kinds.get(p.name) ?? 'check',
      required: p.required,
      status: p.status,
      exit_code: p.exit_code,
      signal: p.signal,
      duration_ms: p.duration_ms,
      output_digest: digestOf(producerSubject(p.name)),
      output_bytes: p.output_bytes,
      truncated: p.truncated,
    })),
    write: input.write ? { tool: input.write.tool, targets: [...input.write.targets], rule: input.write.rule } : null,
    agent_claim: input.agent_claim === null ? null : { claim: input.agent_claim, agrees_with_verdict: claimAgrees(input.agent_claim, input.verdict) },
    sealed_at: sealedAt,
  };
  return { _type: STATEMENT_TYPE, subject: [...digests].map(([name, sha256]) => ({ name, digest: { sha256 } })), predicateType: PREDICATE_TYPE, predicate };
}

/** The statement without its anchor: what the `evidence_sealed` event's `content_digest` covers. */
function withoutAnchor(statement: EvidenceStatement): EvidenceStatement {
  const { anchor: _anchor, ...predicate } = statement.predicate;
  return { ...statement, predicate };
}

/** Hex SHA-256 of the canonical JSON of the statement minus its anchor. */
export function contentDigest(statement: EvidenceStatement): string {
  return sha256Hex(canonicalJson(withoutAnchor(statement)));
}
