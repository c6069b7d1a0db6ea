// Offline verification of an audit directory against keys the operator trusts: streams
// the log once, recomputing every hash, link and the Merkle tree, then checks checkpoints.
//
// What it proves: every event up to the latest checkpoint that verifies is exactly as it
// was when a trusted key signed that checkpoint: any edit, deletion, reordering or
// truncation below it is found, and the first bad seq named. Past that checkpoint the
// events are held only by the hash chain: an edit or a break in it is found, but anyone
// who can write the file can append (or rewrite and re-chain) events there undetected
// until the next checkpoint — `covered` in the report says where that boundary is. A
// key learnt from a `key_rotated` event counts only if a trusted key endorsed it.
import type { KeyObject } from 'node:crypto';
import { closeSync } from 'node:fs';
import { openRegularFile } from '../small-file.js';
import { join } from 'node:path';
import { CompactRange, emptyRoot } from '../../core/crypto/merkle.js';
import { keyIdOf, keyNameOf } from '../keys.js';
import { readCheckpointFile, type CheckpointFile } from './checkpoints.js';
import type { AuditEventDataMap } from './events.js';
import { readTextLines } from './lines.js';
import { CHECKPOINT_FILE, LOG_FILE } from './log.js';
import { ProofRecorder } from './proof-recorder.js';
import { GENESIS_HASH } from './record.js';
import { chainAfter, lineProblem, parseObject } from './verify-line.js';
import { verifyRotationEndorsement } from './rotation.js';
import { checkCheckpoints, claimsOf, type Claim, type Finding, type TrustedKey } from './verify-checkpoints.js';

// A badly damaged log yields a problem per line; past this many the rest are counted only.
const MAX_PROBLEMS = 100;

/** The outcome of {@link verifyAudit}. */
export interface VerifyReport {
  /** True when nothing at all is wrong. */
  ok: boolean;
  /** Complete event lines in the log. */
  events: number;
  /** Checkpoints whose signature verified under a trusted key and whose root matches the log. */
  checkpoints: number;
  /** The first problem in log order: `seq` is the position (the seq the line should carry); null when it concerns a checkpoint only. */
  first_bad: { seq: number | null; reason: string } | null;
  problems: string[];
  /** Hex Merkle root of all complete lines. */
  root: string;
  /** Merkle tree size: the number of complete lines. */
  size: number;
  /** Events covered by a verified checkpoint; those past it rest on the hash chain alone. */
  covered: number;
  /** Ids of the keys trusted by the end: the given ones and those endorsed by rotation. */
  trusted_key_ids: string[];
}

/** What streaming the log found. */
export interface LogScan {
  events: number;
  range: CompactRange;
  rootAt: Map<number, Buffer>;
  findings: Finding[];
}

function trustedFrom(keys: readonly KeyObject[]): TrustedKey[] {
  return keys.map((publicKey) => {
    const keyId = keyIdOf(publicKey);
    return { keyId, name: keyNameOf(keyId), publicKey, fromSize: 0 };
  });
}

function scanLog(file: string, keys: TrustedKey[], wanted: ReadonlySet<number>, recorder: ProofRecorder): LogScan {
  const range = new CompactRange(recorder.onNode);
  const rootAt = new Map<number, Buffer>();
  if (wanted.has(0)) rootAt.set(0, emptyRoot());
  const findings: Finding[] = [];
  let fd: number;
  try {
    fd = openRegularFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { events: 0, range, rootAt, findings };
    // A FIFO or folder in its place: nothing of the log can be read, and verify says so.
    if (code === 'ENOTREG') return { events: 0, range, rootAt, findings: [{ seq: 0, reason: (err as Error).message }] };
    throw err;
  }
  let prevSeq = -1;
  let prevHash: string | null = GENESIS_HASH;
  try {
    for (const line of readTextLines(fd)) {
      const at = range.size;
      if (!line.complete) {
        findings.push({
          seq: at,
          reason: `interrupted append: the log ends with ${line.bytes?.length ?? 0} bytes after its last newline (a writer was killed mid-line); the next append cuts them off and records an audit_repaired event`,
        });
        break;
      }
      const text = line.text;
      const e = parseObject(text);
      const problem = lineProblem(e, text, line.bytes, prevSeq, prevHash);
      if (problem !== null) findings.push({ seq: at, reason: problem });
      else if (e!.type === 'key_rotated') learnRotation(e!.data as AuditEventDataMap['key_rotated'], at, keys, findings);
      ({ seq: prevSeq, hash: prevHash } = chainAfter(e, { seq: prevSeq, hash: prevHash }));
      // The leaf is the line's bytes: its text encodes back to them unless they were not UTF-8.
      range.pushData(line.bytes ?? text);
      recorder.atSize(range);
      if (wanted.has(range.size)) rootAt.set(range.size, range.root());
    }
  } finally {
    closeSync(fd);
  }
  return { events: range.size, range, rootAt, findings };
}

/** Trusts the key a rotation introduces if a key trusted so far endorsed it. */
export function learnRotation(data: AuditEventDataMap['key_rotated'], seq: number, keys: TrustedKey[], findings: Finding[]): void {
  if (keys.some((k) => k.keyId === data.key_id)) return;
  const previous = keys.find((k) => k.keyId === data.previous_key_id);
  // Rotations from keys the operator did not hand us teach nothing, and prove nothing wrong.
  if (previous === undefined) return;
  const next = verifyRotationEndorsement(data, previous.publicKey);
  if (!next.ok) {
    findings.push({ seq, reason: `key_rotated: ${next.reason} The new key is not trusted.` });
    return;
  }
  keys.push({ keyId: data.key_id, name: keyNameOf(data.key_id), publicKey: next.value, fromSize: seq + 1 });
}

/**
 * Verifies `<auditDir>` (log.jsonl, checkpoints.jsonl) against `trustedKeys`, never against
 * keys found in the directory itself. Reads the log once, in chunks.
 * @example const r = verifyAudit(join(state, 'audit'), [...knownPublicKeys(state).values()]); if (!r.ok) console.error(r.first_bad)
 */
export function verifyAudit(auditDir: string, trustedKeys: KeyObject[]): VerifyReport {
  const plan = planVerify(auditDir, trustedKeys);
  return finishVerify(plan, scanLog(join(auditDir, LOG_FILE), plan.keys, plan.wanted, plan.recorder));
}

/** What verify reads before the log: the checkpoints' claims, the sizes whose roots they need, the keys. */
export interface VerifyPlan {
  file: CheckpointFile;
  claims: Claim[];
  claimFindings: Finding[];
  /** Tree sizes whose root a checkpoint claims. */
  wanted: ReadonlySet<number>;
  recorder: ProofRecorder;
  /** Trusted so far; a verified `key_rotated` event adds to it. */
  keys: TrustedKey[];
}

/** Reads the checkpoints of `<auditDir>` and prepares the log scan. */
export function planVerify(auditDir: string, trustedKeys: KeyObject[]): VerifyPlan {
  return planFromCheckpoints(readCheckpointFile(join(auditDir, CHECKPOINT_FILE)), trustedKeys);
}

/** Prepares a scan from checkpoints read from anywhere (a file, the team store's rows). */
export function planFromCheckpoints(file: CheckpointFile, trustedKeys: KeyObject[]): VerifyPlan {
  const { claims, findings: claimFindings } = claimsOf(file.records);
  const pairs = claims.slice(1).map((c, i) => [claims[i]!.size, c.size] as const);
  return { file, claims, claimFindings, wanted: new Set(claims.map((c) => c.size)), recorder: new ProofRecorder(pairs), keys: trustedFrom(trustedKeys) };
}

/** Checks the checkpoints against what the scan of the log found, and writes the report. */
export function finishVerify(plan: VerifyPlan, scan: LogScan): VerifyReport {
  const { file, claims, claimFindings, recorder, keys } = plan;
  const checked = checkCheckpoints(claims, keys, { size: scan.events, rootAt: scan.rootAt, recorder });
  const cpFindings: Finding[] = [...file.problems.map((reason) => ({ seq: null, reason })), ...claimFindings, ...checked.findings];
  if (file.tornBytes > 0) cpFindings.push({ seq: null, reason: `checkpoints.jsonl ends with ${file.tornBytes} bytes of an interrupted checkpoint write; the next checkpoint cuts them off` });
  // Log findings name events exactly; checkpoint findings only bound where the damage is.
  const first = scan.findings[0] ?? cpFindings.find((f) => f.seq !== null) ?? cpFindings[0] ?? null;
  const all = [...scan.findings.map((f) => ({ ...f, text: `seq ${f.seq}: ${f.reason}` })), ...cpFindings.map((f) => ({ ...f, text: f.reason }))];
  const problems = all.slice(0, MAX_PROBLEMS).map((f) => f.text);
  if (all.length > MAX_PROBLEMS) problems.push(`…and ${all.length - MAX_PROBLEMS} more problems`);
  return {
    ok: all.length === 0,
    events: scan.events,
    checkpoints: checked.verified,
    first_bad: first === null ? null : { seq: first.seq, reason: first.reason },
    problems,
    root: scan.range.root().toString('hex'),
    size: scan.range.size,
    covered: checked.covered,
    trusted_key_ids: keys.map((k) => k.keyId),
  };
}
