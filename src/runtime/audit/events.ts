// Every audit event type, declared once with the shape of its `data` and a small check.
// Plain checks, no schema library: this runs inside the hook process on every call.
import type { SandboxRecord } from '../../core/sandbox.js';

/** One verifier's part in a completion verdict. */
interface VerifierSummary {
  name: string;
  outcome: string;
  reason?: string | null;
  /** The same refusal worded for a person (no instructions to the agent). Absent before this field existed. */
  summary?: string;
}

/** `data` of each event type. Readers ignore keys they do not know, so writers may add some. */
export interface AuditEventDataMap {
  /**
   * `policy_sha256` / `baseline_sha256` / `render_sha256`: SHA-256 of policy.json, baseline.json and
   * render.json as written at start (`session check` and `session end` trust them only while they match).
   */
  session_started: {
    agent: string;
    worktree: string;
    policy_digest?: string;
    policy_sha256?: string;
    baseline_sha256?: string | null;
    render_sha256?: string;
    sandboxed?: boolean;
    sandbox?: SandboxRecord;
  };
  /** A session's own files (policy, baseline) were changed or removed after start; every hook call is refused. */
  tamper_detected: { event: string; what: string };
  session_ended: { reason: string; exit_code?: number | null };
  gate_decision: {
    event: string;
    tool: string;
    targets: string[];
    decision: 'allow' | 'block' | 'halt' | 'ask';
    rule: string;
    input_digest: string;
    reason?: string;
  };
  completion_verdict: {
    where: string;
    /** pass, fail, halt or unverified: `outcome` is the chain's own word (`continue` lets the stop through). Absent before this field existed. */
    verdict?: string;
    outcome: 'continue' | 'allow' | 'block' | 'halt';
    decided_by: string | null;
    /** Every check that refused the stop, in order. */
    failed_checks?: string[];
    reason: string | null;
    verifiers: VerifierSummary[];
    input_digest?: string;
  };
  evidence_sealed: { evidence_id: string; content_digest: string; kind: string; where: string; verdict: string };
  /** `endorsement`: base64 Ed25519 signature by the previous key, see rotation.ts. */
  key_rotated: { previous_key_id: string; key_id: string; public_key_pem: string; endorsement: string };
  /**
   * Records that a checkpoint was written, for callers that want it in the chain.
   * AuditLog.checkpoint never appends it: an event would change the tree it signs.
   */
  checkpoint_written: { tree_size: number; root: string; key_id: string };
  human_approval_decision: { approval_id: string; tool: string; decision: string; decided_by: string; reason?: string; auth?: string };
  /**
   * An "always" resolution added this always-allow rule (recorded apart from the decision).
   * `rule_id` and `scope` (`session` or `project`) are absent in events written before rules had ids.
   */
  always_allow_added: { approval_id: string; tool: string; rule: string; rule_id?: string; scope?: string };
  /** A person revoked an always-allow rule made by an answer; the actor is who revoked it. */
  always_allow_revoked: { rule_id: string; tool: string; rule: string; scope: string; auth?: string };
  /** Written by the log itself when it cut off a line a killed writer left half-written. */
  audit_repaired: { dropped_bytes: number; dropped_sha256: string };
  /**
   * The team store resolved an approval otherwise than this machine's queue answered its agent
   * (a partition, a local answer racing a remote one); the actor is the approval relay.
   */
  approval_conflict: { approval_id: string; tool: string; store_decision: string; store_decided_by: string; applied_decision: string; applied_decided_by: string };
}

/** The name of an audit event type. */
export type AuditEventType = keyof AuditEventDataMap;

type Data = Record<string, unknown>;
/** Returns what is wrong with `data`, or null when it is fine. */
type Check = (data: Data) => string | null;

// Lowercase hex SHA-256 (a key id, a root, a digest). Not imported from record.ts, which
// imports this file.
function isHex64(s: unknown): boolean {
  if (typeof s !== 'string' || s.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

function str(d: Data, key: string): string | null {
  return typeof d[key] === 'string' ? null : `data.${key} must be a string`;
}
function optStr(d: Data, key: string): string | null {
  return d[key] === undefined ? null : str(d, key);
}
function strOrNull(d: Data, key: string): string | null {
  return d[key] === null ? null : str(d, key);
}
function count(d: Data, key: string): string | null {
  return Number.isSafeInteger(d[key]) && (d[key] as number) >= 0 ? null : `data.${key} must be a non-negative integer`;
}
function hex64(d: Data, key: string): string | null {
  return isHex64(d[key]) ? null : `data.${key} must be 64 lowercase hex digits`;
}
function oneOf(d: Data, key: string, values: readonly string[]): string | null {
  return values.includes(d[key] as string) ? null : `data.${key} must be one of ${values.join(', ')}`;
}
function strings(d: Data, key: string): string | null {
  const v = d[key];
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? null : `data.${key} must be an array of strings`;
}
function verifiers(d: Data, key: string): string | null {
  const v = d[key];
  const okItem = (x: unknown): boolean => {
    if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
    const r = x as Data;
    return typeof r.name === 'string' && typeof r.outcome === 'string' && (r.reason === undefined || r.reason === null || typeof r.reason === 'string');
  };
  return Array.isArray(v) && v.every(okItem) ? null : `data.${key} must be an array of {name, outcome, reason?}`;
}

const GATE_DECISIONS = ['allow', 'block', 'halt', 'ask'] as const;
const COMPLETION_OUTCOMES = ['continue', 'allow', 'block', 'halt'] as const;

/** The first problem among checks already run (each is a few comparisons). */
function first(...checks: (string | null)[]): string | null {
  for (const c of checks) if (c !== null) return c;
  return null;
}

/** The registry: each event type and the check of its `data`. */
const AUDIT_EVENT_TYPES: { readonly [T in AuditEventType]: Check } = {
  session_started: (d) => first(str(d, 'agent'), str(d, 'worktree'), optStr(d, 'policy_digest'), optStr(d, 'policy_sha256')),
  tamper_detected: (d) => first(str(d, 'event'), str(d, 'what')),
  session_ended: (d) => first(str(d, 'reason'), d.exit_code === undefined || d.exit_code === null || Number.isSafeInteger(d.exit_code) ? null : 'data.exit_code must be an integer or null'),
  gate_decision: (d) => first(str(d, 'event'), str(d, 'tool'), strings(d, 'targets'), oneOf(d, 'decision', GATE_DECISIONS), str(d, 'rule'), str(d, 'input_digest'), optStr(d, 'reason')),
  completion_verdict: (d) => first(str(d, 'where'), oneOf(d, 'outcome', COMPLETION_OUTCOMES), strOrNull(d, 'decided_by'), strOrNull(d, 'reason'), verifiers(d, 'verifiers'), optStr(d, 'input_digest')),
  evidence_sealed: (d) => first(str(d, 'evidence_id'), str(d, 'content_digest'), str(d, 'kind'), str(d, 'where'), str(d, 'verdict')),
  key_rotated: (d) => first(hex64(d, 'previous_key_id'), hex64(d, 'key_id'), str(d, 'public_key_pem'), str(d, 'endorsement')),
  checkpoint_written: (d) => first(count(d, 'tree_size'), hex64(d, 'root'), hex64(d, 'key_id')),
  human_approval_decision: (d) => first(str(d, 'approval_id'), str(d, 'tool'), str(d, 'decision'), str(d, 'decided_by'), optStr(d, 'reason')),
  audit_repaired: (d) => first(count(d, 'dropped_bytes'), hex64(d, 'dropped_sha256')),
  always_allow_added: (d) => first(str(d, 'approval_id'), str(d, 'tool'), str(d, 'rule'), optStr(d, 'rule_id'), optStr(d, 'scope')),
  always_allow_revoked: (d) => first(str(d, 'rule_id'), str(d, 'tool'), str(d, 'rule'), str(d, 'scope'), optStr(d, 'auth')),
  approval_conflict: (d) => first(str(d, 'approval_id'), str(d, 'tool'), str(d, 'store_decision'), str(d, 'store_decided_by'), str(d, 'applied_decision'), str(d, 'applied_decided_by')),
};

/** Whether `type` names a registered event type. */
export function isAuditEventType(type: unknown): type is AuditEventType {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(AUDIT_EVENT_TYPES, type);
}

/**
 * Checks an event's `data` against its type; returns what is wrong, or null.
 * @example validateEventData('audit_repaired', { dropped_bytes: 3 }) // 'data.dropped_sha256 must be …'
 */
export function validateEventData(type: string, data: unknown): string | null {
  if (!isAuditEventType(type)) return `"${type}" is not an audit event type`;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'data must be an object';
  return AUDIT_EVENT_TYPES[type](data as Data);
}
