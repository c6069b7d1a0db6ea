// The two approval records (a pending request and its one resolution), their ids, and
// the checks that every record read back from disk must pass before anyone trusts it.
import { randomBytes } from 'node:crypto';
import type { AlwaysTarget } from '../../core/approvals/always-scope.js';
import type { Principal } from '../../core/approvals/principal.js';
import { MAX_REVIEW_CHARS } from '../../core/approvals/summary.js';
import { fail, ok, type Result } from '../../core/result.js';
import { sameSecret } from '../secret-compare.js';
import { checkStoredPrincipal } from './system-principals.js';

/** An approval request a hook process is waiting on. */
export interface PendingApproval {
  /** `ap-<base36 ms>-<hex>`: safe as a file name, sorts by creation time. */
  id: string;
  /** 128 random bits as hex; an HTTP resolver must echo it, so a stale page cannot answer a newer request. */
  nonce: string;
  session_id: string;
  agent: string;
  tool: string;
  /** Already redacted by the caller. */
  summary: string;
  /** Why a person is asked (the classifier's reason, or that no rule allows the call); absent in older records. */
  why?: string;
  created_at: string;
  expires_at: string;
  /** The process waiting for the answer (a hook, or the supervisor for warm hooks); when it is gone the request is swept. */
  pid: number;
  /**
   * Names the one wait (a hook process, or one supervisor thread serving a warm hook) and
   * its heartbeat file: when the heartbeat stops, the request is swept even though the pid
   * lives on. Absent in records filed by an older Gatehouse (those are judged by pid only).
   */
  waiter?: string;
  /**
   * What an "always" answer would add a rule for (null: nothing, the input cannot be matched
   * again), shown with the request. Absent on requests filed by an older Gatehouse.
   */
  always?: AlwaysTarget | null;
}

/**
 * What a human (or the queue itself) answered. `always` also asks the caller to add an
 * always-allow rule for this session only; `always-project` one for every later session too.
 */
export type ApprovalDecision = 'allow' | 'reject' | 'always' | 'always-project';

/** The one answer to an approval; created exclusively, never rewritten. */
export interface Resolution {
  id: string;
  decision: ApprovalDecision;
  reason: string | null;
  principal: Principal;
  resolved_at: string;
  /** Set when the queue denied the request because its time ran out. */
  expired?: boolean;
}

/** Why a resolve call was refused; `message` says what to do next. */
export type ResolveError = {
  code: 'bad_id' | 'not_found' | 'nonce_mismatch' | 'already_resolved' | 'bad_principal' | 'bad_decision' | 'not_recorded';
  message: string;
};

/** What `ApprovalQueue.enqueue` needs from the caller. */
export type EnqueueInput = Omit<PendingApproval, 'id' | 'nonce' | 'created_at' | 'expires_at' | 'pid' | 'waiter'> & { ttlSeconds: number };
/** An answer as a resolver gives it. */
export interface ResolveInput {
  decision: ApprovalDecision;
  reason?: string | null;
  /** Required for gateway principals (auth scoped-token or access-token); checked whenever given. */
  nonce?: string;
  principal: Principal;
}
/** Everything known about one id; `problem` says why a record is missing or unusable. */
export interface ApprovalState {
  pending: PendingApproval | null;
  resolution: Resolution | null;
  problem: { code: 'bad_id' | 'corrupt_pending' | 'corrupt_resolution'; message: string } | null;
}
/** The outcome of a resolve call. */
export type ResolveResult = { ok: true; value: Resolution } | { ok: false; error: ResolveError };

/** The decisions a resolver may give. */
export const APPROVAL_DECISIONS: readonly ApprovalDecision[] = ['allow', 'reject', 'always', 'always-project'];

/**
 * Approval ids. Anchored and made of [0-9a-z-] only, so an id can never name a path
 * outside `pending/` or `resolved/` (no dots, no slashes).
 */
export const APPROVAL_ID_RE = /^ap-[0-9a-z]{1,12}-[0-9a-f]{8,32}$/;
// Width of the time part: base36 of Date.now() is 8 digits until the year 2059; padding
// to 9 keeps ids sorting by time for far longer than this format will live.
const ID_TIME_WIDTH = 9;
// Random part of an id: 48 bits on top of the millisecond makes two ids created in the
// same millisecond collide about once in 10^14 pairs; the exclusive create catches the rest.
const ID_RANDOM_BYTES = 6;
// 128 bits: the nonce is a capability for HTTP resolvers, so it must not be guessable.
const NONCE_BYTES = 16;
const NONCE_RE = /^[0-9a-f]{32}$/;
/** Waiter ids: `w-` and 64 random bits as hex, safe as a file name (no dots, no slashes). */
export const WAITER_ID_RE = /^w-[0-9a-f]{16}$/;

/**
 * Longest summary stored: what a person may be asked to review whole. The approval step
 * refuses a longer call before it is filed; a longer summary from any other caller is
 * cut (a hook must never fail here), and then says so with its trailing `…`.
 */
export const MAX_SUMMARY_CHARS = MAX_REVIEW_CHARS;
/** Longest resolver reason stored; the reason is fed back to the agent, which needs a sentence, not a document. */
export const MAX_REASON_CHARS = 2000;
/** Longest reason for asking stored: one sentence or two from the classifier. */
export const MAX_WHY_CHARS = 2000;
/** Longest agent, tool or session name stored (longer ones are cut); these are labels, and the bound keeps a record small. */
export const MAX_LABEL_CHARS = 200;

/** True if `id` is a well-formed approval id (and so a safe file name). */
export function isApprovalId(id: unknown): id is string {
  return typeof id === 'string' && APPROVAL_ID_RE.test(id);
}

/** A fresh approval id for a request created at `at`. */
export function newApprovalId(at: Date): string {
  const time = at.getTime().toString(36).padStart(ID_TIME_WIDTH, '0');
  return `ap-${time}-${randomBytes(ID_RANDOM_BYTES).toString('hex')}`;
}

/** A fresh 128-bit nonce as lowercase hex. */
export function newNonce(): string {
  return randomBytes(NONCE_BYTES).toString('hex');
}

/** Whether `given` equals the request's nonce, compared in constant time. */
export function nonceMatches(given: unknown, expected: string): boolean {
  return typeof given === 'string' && sameSecret(given, expected);
}

/** Cuts `text` to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

type Fields = Record<string, unknown>;

function text(d: Fields, key: string, max: number): string | null {
  const v = d[key];
  return typeof v === 'string' && v.length <= max ? null : `${key} must be a string of at most ${max} characters`;
}
function time(d: Fields, key: string): string | null {
  const v = d[key];
  return typeof v === 'string' && Number.isFinite(Date.parse(v)) ? null : `${key} must be an ISO date`;
}
function first(...checks: (string | null)[]): string | null {
  for (const c of checks) if (c !== null) return c;
  return null;
}

function parseObject(json: string, what: string): Result<Fields> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return fail(`${what} is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(`${what} is not a JSON object`);
  return ok(value as Fields);
}

/** Parses and checks a pending record read from the file named after `expectedId`. */
export function parsePending(json: string, expectedId: string): Result<PendingApproval> {
  const parsed = parseObject(json, `pending approval ${expectedId}`);
  if (!parsed.ok) return parsed;
  const d = parsed.value;
  const problem = first(
    d.id === expectedId ? null : `id does not match its file name ${expectedId}`,
    typeof d.nonce === 'string' && NONCE_RE.test(d.nonce) ? null : 'nonce must be 32 lowercase hex digits',
    text(d, 'session_id', MAX_LABEL_CHARS),
    text(d, 'agent', MAX_LABEL_CHARS),
    text(d, 'tool', MAX_LABEL_CHARS),
    text(d, 'summary', MAX_SUMMARY_CHARS),
    d.why === undefined ? null : text(d, 'why', MAX_WHY_CHARS),
    time(d, 'created_at'),
    time(d, 'expires_at'),
    Number.isSafeInteger(d.pid) && (d.pid as number) > 0 ? null : 'pid must be a positive integer',
    d.waiter === undefined || (typeof d.waiter === 'string' && WAITER_ID_RE.test(d.waiter)) ? null : 'waiter must be w- and 16 lowercase hex digits',
    d.always === undefined || d.always === null || isAlwaysTarget(d.always) ? null : 'always must be null or {tool, on, paths}',
  );
  if (problem !== null) return fail(`pending approval ${expectedId} is corrupt: ${problem}`);
  const { id, nonce, session_id, agent, tool, summary, why, created_at, expires_at, pid, waiter, always } = d as unknown as PendingApproval;
  return ok({ id, nonce, session_id, agent, tool, summary, ...(why === undefined ? {} : { why }), created_at, expires_at, pid, ...(waiter === undefined ? {} : { waiter }), ...(always === undefined ? {} : { always }) });
}

/** Most paths an `always` target lists: a write names a handful; more is a record not written by the queue. */
export const MAX_ALWAYS_PATHS = 256;

function isAlwaysTarget(v: unknown): v is AlwaysTarget {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const t = v as Fields;
  return (
    typeof t.tool === 'string' &&
    t.tool.length <= MAX_LABEL_CHARS &&
    (t.on === 'paths' || t.on === 'command' || t.on === 'input') &&
    Array.isArray(t.paths) &&
    t.paths.length <= MAX_ALWAYS_PATHS &&
    t.paths.every((p) => typeof p === 'string' && p.length <= MAX_SUMMARY_CHARS)
  );
}

/** Parses and checks a resolution record read from the file named after `expectedId`. */
export function parseResolution(json: string, expectedId: string): Result<Resolution> {
  const parsed = parseObject(json, `resolution of ${expectedId}`);
  if (!parsed.ok) return parsed;
  const d = parsed.value;
  const principal = checkStoredPrincipal(d.principal);
  const problem = first(
    d.id === expectedId ? null : `id does not match its file name ${expectedId}`,
    APPROVAL_DECISIONS.includes(d.decision as ApprovalDecision) ? null : `decision must be one of ${APPROVAL_DECISIONS.join(', ')}`,
    d.reason === null ? null : text(d, 'reason', MAX_REASON_CHARS),
    principal.ok ? null : `principal is not valid: ${principal.reason}`,
    time(d, 'resolved_at'),
    d.expired === undefined || typeof d.expired === 'boolean' ? null : 'expired must be true or false',
  );
  if (problem !== null || !principal.ok) return fail(`resolution of ${expectedId} is corrupt: ${problem ?? 'bad principal'}`);
  const { id, decision, reason, resolved_at, expired } = d as unknown as Resolution;
  return ok({ id, decision, reason, principal: principal.value, resolved_at, ...(expired === undefined ? {} : { expired }) });
}
