// Seals one decision as an evidence bundle: blobs stored, statement digested, an
// `evidence_sealed` audit event checkpointed, the anchored statement signed with DSSE.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../core/crypto/canonical-json.js';
import { signEnvelope, type DsseEnvelope } from '../../core/crypto/dsse.js';
import type { AuditLog } from '../audit/log.js';
import type { AppendInput } from '../audit/record.js';
import type { SigningKey } from '../keys.js';
import { createFileExclusive } from '../fs-exclusive.js';
import { uniqueToken } from '../unique-token.js';
import { putBlob } from './blobs.js';
import { buildStatement, contentDigest, evidenceBlobs, PAYLOAD_TYPE, type EvidenceStatement, type SealInput } from './statement.js';
import { isoTime } from '../../core/iso-time.js';

/**
 * Receipt ids: `ev-<UTC yyyymmddThhmmssZ>-<16 hex>`; 64 random bits make two seals in one second
 * collide about never, and a bundle is created exclusively, so a collision fails, never replaces.
 * They name a bundle, not grant anything, so they need not be secret (unique-token.ts).
 */
export const EVIDENCE_ID_RE = /^ev-\d{8}T\d{6}Z-[0-9a-f]{16}$/;
/** The audit event type and actor of a seal. */
export const EVIDENCE_EVENT_TYPE = 'evidence_sealed';
const EVIDENCE_ACTOR = 'system:evidence';

/** A bundle file as stored in `<state>/evidence/bundles/<id>.json`. */
export interface EvidenceBundle {
  envelope: DsseEnvelope;
}

/** The folder of a project's bundles. */
export function bundleDir(projectState: string): string {
  return join(projectState, 'evidence', 'bundles');
}

/** A fresh receipt id for a seal at `now`. */
function newEvidenceId(now: Date): string {
  const stamp = isoTime(now)
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `ev-${stamp}-${uniqueToken()}`;
}

/**
 * Seals a decision: stores its blobs, records an `evidence_sealed` event holding the
 * digest of the statement (minus anchor), checkpoints the log so a signed tree head
 * covers that event, then signs the anchored statement. Throws on I/O failure.
 * `decision`, when given, is the event of the decision itself (the verdict, the refusal):
 * it is appended just before the evidence event, in the same hold of the log's lock, and
 * is appended even when its evidence cannot be sealed.
 * @example const { id } = sealEvidence(state, { where: 'in_session', kind: 'completion_verdict', verdict: 'pass', … }, key, audit)
 */
export function sealEvidence(projectState: string, input: SealInput, key: SigningKey, audit: AuditLog, decision?: AppendInput): { id: string; file: string } {
  const now = input.now ?? new Date();
  const id = newEvidenceId(now);
  const digests = new Map<string, string>();
  try {
    for (const blob of evidenceBlobs(input)) digests.set(blob.name, putBlob(projectState, blob.data));
  } catch (err) {
    if (decision !== undefined) audit.append(decision);
    throw err;
  }
  const statement: EvidenceStatement = buildStatement(id, input, isoTime(now), digests);

  const sealed = audit.appendAndCheckpoint(
    [
      ...(decision === undefined ? [] : [decision]),
      {
        type: EVIDENCE_EVENT_TYPE,
        actor: EVIDENCE_ACTOR,
        session_id: statement.predicate.session_id,
        data: { evidence_id: id, content_digest: contentDigest(statement), kind: input.kind, where: input.where, verdict: input.verdict },
      },
    ],
    key,
  );
  const { checkpoint } = sealed;
  const { event, line, proof } = sealed.events.at(-1)!;
  if (proof.root !== checkpoint.root || proof.leaf_index !== event.seq) {
    throw new Error(`evidence: the audit log gives no proof of event ${event.seq} in its checkpoint of size ${checkpoint.tree_size}`);
  }
  statement.predicate.anchor = {
    checkpoint: { note: checkpoint.note, tree_size: checkpoint.tree_size, root: checkpoint.root },
    leaf_index: proof.leaf_index,
    inclusion_proof: [...proof.hashes],
    event_line: line,
  };

  const envelope = signEnvelope(PAYLOAD_TYPE, Buffer.from(canonicalJson(statement), 'utf8'), { keyId: key.keyId, privateKey: key.privateKey });
  const dir = bundleDir(projectState);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${id}.json`);
  const bundle: EvidenceBundle = { envelope };
  // No fsync: sealing runs inside a hook; tamper evidence, not power-loss durability, is the goal.
  createFileExclusive(file, `${JSON.stringify(bundle, null, 2)}\n`, { noSync: true });
  return { id, file };
}
