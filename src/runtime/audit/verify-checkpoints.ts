// Checks the signed checkpoints: each against the trusted keys and against the root
// verify recomputed from the log at its size, and each against the one before it.
import type { KeyObject } from 'node:crypto';
import { verifyConsistency } from '../../core/crypto/merkle.js';
import { parseCheckpoint, parseNote } from '../../core/crypto/signed-note.js';
import { verifyNote } from '../../core/crypto/signed-note-verify.js';
import type { StoredCheckpoint } from './checkpoints.js';
import type { ProofRecorder } from './proof-recorder.js';

/** A key verify accepts checkpoints from. */
export interface TrustedKey {
  keyId: string;
  name: string;
  publicKey: KeyObject;
  /**
   * Smallest tree size it may sign: 0 for a key the operator trusts; for a key learnt
   * from a `key_rotated` event at seq s, s + 1, so its trees contain its own endorsement.
   */
  fromSize: number;
}

/** A checkpoint as its note claims it, before any signature is checked. */
export interface Claim {
  /** 1-based position in checkpoints.jsonl, for messages. */
  number: number;
  record: StoredCheckpoint;
  size: number;
  root: Buffer;
}

/** A problem, tied to the first event it concerns when there is one. */
export interface Finding {
  seq: number | null;
  reason: string;
}

/** What the log side of verify learnt, for the checkpoint checks. */
export interface LogFacts {
  size: number;
  rootAt: ReadonlyMap<number, Buffer>;
  recorder: ProofRecorder;
}

/** Reads the size and root each checkpoint's note claims (unverified). */
export function claimsOf(records: readonly StoredCheckpoint[]): { claims: Claim[]; findings: Finding[] } {
  const claims: Claim[] = [];
  const findings: Finding[] = [];
  records.forEach((record, i) => {
    const note = parseNote(record.note);
    const body = note.ok ? parseCheckpoint(note.value.body) : note;
    if (!body.ok) findings.push({ seq: null, reason: `checkpoint #${i + 1}: ${body.reason}` });
    else claims.push({ number: i + 1, record, size: body.value.size, root: Buffer.from(body.value.root) });
  });
  return { claims, findings };
}

/** The trusted key that signed the claim, or a finding saying why there is none. */
function signer(claim: Claim, keys: readonly TrustedKey[]): TrustedKey | Finding {
  const label = `checkpoint #${claim.number} (tree size ${claim.size})`;
  const parsed = parseNote(claim.record.note);
  const names = parsed.ok ? [...new Set(parsed.value.signatures.map((s) => s.name))] : [];
  let early: TrustedKey | null = null;
  for (const key of keys.filter((k) => names.includes(k.name))) {
    const v = verifyNote(claim.record.note, key.name, key.publicKey);
    if (v.ok && key.fromSize <= claim.size) return key;
    if (v.ok) early = key;
    else if (!v.reason.startsWith('The note carries no signature'))
      return { seq: null, reason: `${label}: the signature by ${key.name} does not verify: the checkpoint was altered after it was signed` };
  }
  if (early !== null) {
    return { seq: null, reason: `${label} is signed by ${early.name}, which the log introduces only at seq ${early.fromSize - 1}; a rotated-in key may sign only trees that contain its rotation` };
  }
  return { seq: null, reason: `${label} is signed only by ${names.join(', ') || 'nobody'}, which is not a trusted key: the log was re-signed, or verify was given the wrong keys` };
}

/**
 * Checks every claim; returns the findings, how many checkpoints fully verified and the
 * largest tree size a verified checkpoint covers.
 */
export function checkCheckpoints(claims: readonly Claim[], keys: readonly TrustedKey[], log: LogFacts): { findings: Finding[]; verified: number; covered: number } {
  const findings: Finding[] = [];
  let verified = 0;
  let covered = 0;
  let previous: { claim: Claim; matched: boolean } | null = null;
  for (const claim of claims) {
    const label = `checkpoint #${claim.number} (tree size ${claim.size})`;
    const key = signer(claim, keys);
    if (!('keyId' in key)) {
      findings.push(key);
      continue;
    }
    if (claim.record.tree_size !== claim.size || claim.record.root !== claim.root.toString('hex')) {
      findings.push({ seq: null, reason: `${label}: the record's tree_size or root differs from its signed note (the signed values are the ones checked)` });
    }
    let matched = false;
    if (claim.size > log.size) {
      findings.push({
        seq: log.size,
        reason: `the log has ${log.size} events but ${label}, signed by ${key.name}, covers ${claim.size}: events ${log.size}..${claim.size - 1} were removed from its end`,
      });
    } else if (!log.rootAt.get(claim.size)?.equals(claim.root)) {
      // Earlier checkpoints that matched vouch for the events below `from`.
      const from = Math.min(covered, claim.size);
      findings.push({
        seq: from,
        reason: `${label}, signed by ${key.name}, does not match the log: an event in seq ${from}..${claim.size - 1} was changed, removed or reordered after it was signed`,
      });
    } else {
      matched = true;
      verified++;
      covered = Math.max(covered, claim.size);
    }
    if (previous !== null) {
      const [m, n] = [previous.claim.size, claim.size];
      if (n < m) {
        findings.push({ seq: null, reason: `${label} is smaller than checkpoint #${previous.claim.number} (tree size ${m}): the log was rolled back between them` });
      } else if (previous.matched && matched) {
        // The proof a holder of the two checkpoints alone would check. Both roots match
        // the log, so it must verify; when one does not, the finding above says so.
        const proof = log.recorder.proof(m, n);
        if (proof === null || !verifyConsistency(m, n, previous.claim.root, claim.root, proof)) {
          findings.push({ seq: null, reason: `no consistency proof links checkpoint #${previous.claim.number} (size ${m}) to #${claim.number} (size ${n}) although both match the log` });
        }
      }
    }
    previous = { claim, matched };
  }
  return { findings, verified, covered };
}
