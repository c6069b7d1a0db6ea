// Offline verification of an evidence bundle against a key the operator trusts: the DSSE
// signature, the statement's shape, every subject's blob, and the anchor in the audit tree.
import type { SandboxRecord } from '../../core/sandbox.js';
import type { KeyObject } from 'node:crypto';
import { envelopePayload } from '../../core/crypto/dsse.js';
import { verifyEnvelope } from '../../core/crypto/dsse-verify.js';
import { leafHash, verifyInclusion } from '../../core/crypto/merkle.js';
import { parseCheckpoint } from '../../core/crypto/signed-note.js';
import { verifyNote } from '../../core/crypto/signed-note-verify.js';
import type { Result } from '../../core/result.js';
import { keyIdOf, keyNameOf } from '../keys.js';
import { sha256Hex } from '../../core/crypto/sha256.js';
import { SHA256_HEX_RE } from './blobs.js';
import { EVIDENCE_EVENT_TYPE, EVIDENCE_ID_RE } from './seal.js';
import {
  contentDigest,
  EVIDENCE_KINDS,
  EVIDENCE_VERDICTS,
  EVIDENCE_WHERE,
  PAYLOAD_TYPE,
  PREDICATE_TYPE,
  producerSubject,
  STATEMENT_TYPE,
  type EvidenceAnchor,
  type EvidenceStatement,
} from './statement.js';

/** The outcome of a verification; each problem starts with the name of the check that failed. */
/**
 * The outcome of verifying a bundle. `sandboxed` is what the verified statement says: false
 * (or absent, in bundles from before it was recorded) means the signing key was readable by the agent.
 */
export type EvidenceCheck = { ok: true; sandboxed: boolean; sandbox: SandboxRecord | null } | { ok: false; problems: string[] };

/**
 * Looks a blob up by its hex SHA-256; a failure, whose reason completes "blob <digest> …"
 * ("is missing"), when it is not available. The bytes are hashed by the caller.
 */
export type BlobSource = (digest: string) => Result<Buffer>;

/** Longest inclusion proof accepted: a tree of 2^64 leaves needs 64 hashes. */
const MAX_PROOF_HASHES = 64;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Reads the statement out of an envelope-shaped value; problems when it is not one of ours. */
export function readStatement(envelope: unknown, problems: string[]): EvidenceStatement | null {
  const payload = envelopePayload(envelope);
  if (payload === null) {
    problems.push('envelope: not a DSSE envelope with a base64 payload');
    return null;
  }
  if ((envelope as { payloadType: string }).payloadType !== PAYLOAD_TYPE) problems.push(`envelope: payloadType is not ${PAYLOAD_TYPE}`);
  let st: unknown;
  try {
    st = JSON.parse(payload.toString('utf8'));
  } catch {
    problems.push('statement: payload is not JSON');
    return null;
  }
  const before = problems.length;
  if (!isObject(st)) problems.push('statement: not a JSON object');
  else {
    if (st._type !== STATEMENT_TYPE) problems.push(`statement: _type is not ${STATEMENT_TYPE}`);
    if (st.predicateType !== PREDICATE_TYPE) problems.push(`statement: predicateType is not ${PREDICATE_TYPE}`);
    const subjectsOk =
      Array.isArray(st.subject) &&
      st.subject.every((s) => isObject(s) && typeof s.name === 'string' && isObject(s.digest) && typeof s.digest.sha256 === 'string' && SHA256_HEX_RE.test(s.digest.sha256));
    if (!subjectsOk) problems.push('statement: subject must be a list of {name, digest: {sha256: <hex>}}');
    const p = st.predicate;
    if (!isObject(p)) problems.push('statement: predicate is missing');
    else {
      if (typeof p.receipt_id !== 'string' || !EVIDENCE_ID_RE.test(p.receipt_id)) problems.push('statement: predicate.receipt_id is not a receipt id');
      if (typeof p.session_id !== 'string') problems.push('statement: predicate.session_id is missing');
      if (!EVIDENCE_WHERE.includes(p.where as never)) problems.push('statement: predicate.where is not in_session or end_of_session');
      if (!EVIDENCE_KINDS.includes(p.kind as never)) problems.push('statement: predicate.kind is unknown');
      if (!EVIDENCE_VERDICTS.includes(p.verdict as never)) problems.push('statement: predicate.verdict is unknown');
      if (typeof p.sealed_at !== 'string') problems.push('statement: predicate.sealed_at is missing');
      if (!Array.isArray(p.verifiers)) problems.push('statement: predicate.verifiers is not a list');
      if (!Array.isArray(p.producers) || !p.producers.every((x) => isObject(x) && typeof x.name === 'string' && typeof x.output_digest === 'string')) {
        problems.push('statement: predicate.producers must be a list of {name, output_digest, …}');
      }
      if (!isAnchor(p.anchor)) problems.push('statement: predicate.anchor is missing or malformed');
    }
  }
  return problems.length === before ? (st as EvidenceStatement) : null;
}

function isAnchor(a: unknown): a is EvidenceAnchor {
  if (!isObject(a) || !isObject(a.checkpoint)) return false;
  const c = a.checkpoint;
  return (
    typeof c.note === 'string' &&
    isCount(c.tree_size) &&
    typeof c.root === 'string' &&
    SHA256_HEX_RE.test(c.root) &&
    isCount(a.leaf_index) &&
    Array.isArray(a.inclusion_proof) &&
    a.inclusion_proof.length <= MAX_PROOF_HASHES &&
    a.inclusion_proof.every((h) => typeof h === 'string' && SHA256_HEX_RE.test(h)) &&
    typeof a.event_line === 'string'
  );
}

function checkSubjects(st: EvidenceStatement, blobs: BlobSource, problems: string[]): void {
  const byName = new Map(st.subject.map((s) => [s.name, s.digest.sha256]));
  for (const s of st.subject) {
    const data = blobs(s.digest.sha256);
    if (!data.ok) problems.push(`subject ${s.name}: blob ${s.digest.sha256} ${data.reason}`);
    else if (sha256Hex(data.value) !== s.digest.sha256) problems.push(`subject ${s.name}: blob content does not match its digest ${s.digest.sha256}`);
  }
  for (const p of st.predicate.producers) {
    if (byName.get(producerSubject(p.name)) !== p.output_digest) problems.push(`producer ${p.name}: output_digest is not the digest of subject ${producerSubject(p.name)}`);
  }
}

/** The content digest of an untrusted statement; null when it holds what canonical JSON refuses (e.g. a lone surrogate). */
function digestOrNull(st: EvidenceStatement): string | null {
  try {
    return contentDigest(st);
  } catch {
    return null;
  }
}

/** Runs a check on untrusted input; a throw counts as a failed check. */
function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

function checkAnchor(st: EvidenceStatement, trustedPublicKey: KeyObject, problems: string[]): void {
  const a = st.predicate.anchor as EvidenceAnchor;
  const p = st.predicate;
  let event: unknown;
  try {
    event = JSON.parse(a.event_line);
  } catch {
    event = null;
  }
  if (!isObject(event) || !isObject(event.data)) problems.push('anchor event: event_line is not an audit event');
  else {
    const d = event.data;
    if (event.type !== EVIDENCE_EVENT_TYPE) problems.push(`anchor event: type is ${String(event.type)}, not ${EVIDENCE_EVENT_TYPE}`);
    if (d.evidence_id !== p.receipt_id) problems.push(`anchor event: records evidence ${String(d.evidence_id)}, not this receipt ${p.receipt_id}`);
    if (d.content_digest !== digestOrNull(st)) problems.push('anchor content: the statement does not match the content_digest its audit event recorded');
    if (d.kind !== p.kind || d.where !== p.where || d.verdict !== p.verdict) problems.push('anchor event: kind, where or verdict differ from the statement');
    if (event.session_id !== p.session_id) problems.push('anchor event: session_id differs from the statement');
    if (event.seq !== undefined && event.seq !== a.leaf_index) problems.push('anchor event: seq differs from leaf_index');
  }
  const root = Buffer.from(a.checkpoint.root, 'hex');
  const proof = a.inclusion_proof.map((h) => Buffer.from(h, 'hex'));
  if (!safely(() => verifyInclusion(leafHash(Buffer.from(a.event_line, 'utf8')), a.leaf_index, a.checkpoint.tree_size, proof, root))) {
    problems.push(`anchor inclusion: the event is not leaf ${a.leaf_index} of the tree of size ${a.checkpoint.tree_size} with root ${a.checkpoint.root}`);
  }
  const note = safeNote(a.checkpoint.note, trustedPublicKey);
  if (!note.ok) {
    problems.push(`anchor checkpoint: the checkpoint is not signed by the trusted key: ${note.reason}`);
    return;
  }
  const cp = parseCheckpoint(note.body);
  if (!cp.ok) {
    problems.push(`anchor checkpoint: the signed note is not a checkpoint: ${cp.reason}`);
    return;
  }
  if (cp.value.size !== a.checkpoint.tree_size || !root.equals(cp.value.root)) {
    problems.push('anchor checkpoint: the signed tree size or root differ from the anchor');
  }
}

/** Verifies the checkpoint note under the trusted key, by the name the project's key signs with. */
function safeNote(note: string, trustedPublicKey: KeyObject): { ok: true; body: string } | { ok: false; reason: string } {
  try {
    return verifyNote(note, keyNameOf(keyIdOf(trustedPublicKey)), trustedPublicKey);
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Verifies a bundle (`{envelope}`, or an export file) offline against `trustedPublicKey`,
 * the key the operator trusts; never throws on bad input.
 * @example const r = verifyEvidence(bundle, operatorKey, (d) => getBlob(state, d))
 */
export function verifyEvidence(bundle: unknown, trustedPublicKey: KeyObject, blobs: BlobSource): EvidenceCheck {
  const problems: string[] = [];
  const envelope = isObject(bundle) ? bundle.envelope : undefined;
  if (!verifyEnvelope(envelope, trustedPublicKey)) problems.push('signature: no signature on the envelope verifies under the trusted key');
  const st = readStatement(envelope, problems);
  if (st !== null) {
    checkSubjects(st, blobs, problems);
    checkAnchor(st, trustedPublicKey, problems);
  }
  return problems.length === 0 && st !== null ? { ok: true, sandboxed: st.predicate.sandboxed === true, sandbox: st.predicate.sandbox ?? null } : { ok: false, problems };
}
