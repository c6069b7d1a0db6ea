// The two approval records (a pending request and its one resolution), their ids, and
// the checks that every record read back from disk must pass before anyone trusts it.
import { randomBytes } from 'node:crypto';
import type { AlwaysTarget } from '../../core/approvals/always-scope.js';
import { MAX_DETAIL_BYTES, type ApprovalDetail } from '../../core/approvals/detail.js';
import type { Principal } from '../../core/approvals/principal.js';
import { MAX_REVIEW_CHARS } from '../../core/approvals/summary.js';
import { isRecord } from '../../core/is-record.js';
import { fail, ok, type Result } from '../../core/result.js';
import { boolean, checkShape, either, list, nullable, number, object, oneOf, optional, refined, text, type Shape } from '../../core/shape.js';
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
  /**
   * What the card shows beyond the summary (a diff, a command's context, the input as JSON),
   * built when the call was filed; absent on requests filed by an older Gatehouse.
   */
  detail?: ApprovalDetail;
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
// Last part of an id: 16 bits counting the ids this process made in the same millisecond,
// then 32 random bits. The count makes a burst filed by one process list in the order it was
// filed (lists sort by time, then id); the random bits keep two processes' ids apart, and the
// exclusive create catches the rare collision.
const ID_RANDOM_BYTES = 4;
const ID_SEQ_HEX = 4;
const ID_SEQ_MAX = 0xffff;
let lastIdMs = -1;
let idSeq = 0;
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

/** A fresh approval id for a request created at `at`; ids one process makes sort in the order it made them. */
export function newApprovalId(at: Date): string {
  const ms = at.getTime();
  idSeq = ms === lastIdMs ? Math.min(idSeq + 1, ID_SEQ_MAX) : 0;
  lastIdMs = ms;
  const time = ms.toString(36).padStart(ID_TIME_WIDTH, '0');
  return `ap-${time}-${idSeq.toString(16).padStart(ID_SEQ_HEX, '0')}${randomBytes(ID_RANDOM_BYTES).toString('hex')}`;
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

/** An ISO date as JSON.stringify writes one (any text Date.parse reads). */
const isoDate = refined(text({ problem: 'must be an ISO date' }), (v) => (Number.isFinite(Date.parse(v)) ? null : 'must be an ISO date'));
const label = text({ max: MAX_LABEL_CHARS, problem: `must be a string of at most ${MAX_LABEL_CHARS} characters` });

/** Most paths an `always` target lists: a write names a handful; more is a record not written by the queue. */
export const MAX_ALWAYS_PATHS = 256;

const AlwaysTargetShape: Shape<AlwaysTarget> = object(
  { tool: label, on: oneOf(['paths', 'command', 'input']), paths: list(text({ max: MAX_SUMMARY_CHARS }), { max: MAX_ALWAYS_PATHS }) },
  { problem: 'must be null or {tool, on, paths}' },
);

/** Longest text in a detail as stored: its byte cap, each character taking at least one byte. */
const detailText = text({ max: MAX_DETAIL_BYTES, problem: `must be a string of at most ${MAX_DETAIL_BYTES} characters` });
const count = number({ int: true, min: 0, problem: 'must be a whole number' });
/** Most files one detail shows: a write or an edit names one. */
const MAX_DETAIL_FILES = 16;

const DetailShape: Shape<ApprovalDetail> = either(
  [
    object(
      {
        kind: oneOf(['diff']),
        files: list(object({ path: text({ max: MAX_SUMMARY_CHARS }), diff: detailText, added: count, removed: count, note: nullable(text({ max: MAX_WHY_CHARS })) }), { max: MAX_DETAIL_FILES }),
        truncated: boolean(),
      },
      { strict: true },
    ),
    object(
      { kind: oneOf(['shell']), command: detailText, description: nullable(detailText), cwd: text({ max: MAX_SUMMARY_CHARS }), why: text({ max: MAX_WHY_CHARS }), rule: text({ max: MAX_WHY_CHARS }) },
      { strict: true },
    ),
    object({ kind: oneOf(['input']), json: detailText, truncated: boolean() }, { strict: true }),
  ],
  'must be a diff, shell or input detail',
);

/**
 * A pending record as the queue writes it; the id is checked against its file name first. A
 * field a later version adds goes here, and into {@link PendingApproval} through the type.
 */
const PendingShape = object({
  nonce: text({ pattern: NONCE_RE, problem: 'must be 32 lowercase hex digits' }),
  session_id: label,
  agent: label,
  tool: label,
  summary: text({ max: MAX_SUMMARY_CHARS, problem: `must be a string of at most ${MAX_SUMMARY_CHARS} characters` }),
  why: optional(text({ max: MAX_WHY_CHARS, problem: `must be a string of at most ${MAX_WHY_CHARS} characters` })),
  created_at: isoDate,
  expires_at: isoDate,
  pid: number({ int: true, positive: true, problem: 'must be a positive integer' }),
  waiter: optional(text({ pattern: WAITER_ID_RE, problem: 'must be w- and 16 lowercase hex digits' })),
  always: optional(nullable(either([AlwaysTargetShape], 'must be null or {tool, on, paths}'))),
  detail: optional(DetailShape),
});

/** A principal read back from a resolution: only its own fields, each checked. */
const StoredPrincipal: Shape<Principal> = {
  read(v) {
    const checked = checkStoredPrincipal(v);
    return checked.ok ? { ok: true, value: checked.value } : { ok: false, at: [], problem: `is not valid: ${checked.reason}` };
  },
};

/** A resolution as the queue writes it; the id is checked against its file name first. */
const ResolutionShape = object({
  decision: oneOf(APPROVAL_DECISIONS, `must be one of ${APPROVAL_DECISIONS.join(', ')}`),
  reason: nullable(text({ max: MAX_REASON_CHARS, problem: `must be a string of at most ${MAX_REASON_CHARS} characters` })),
  principal: StoredPrincipal,
  resolved_at: isoDate,
  expired: optional(boolean('must be true or false')),
});

/** Parses `json` and checks it is an object whose id is `expectedId` and whose rest has `shape`. */
function parseRecord<T>(json: string, expectedId: string, what: string, shape: Shape<T>): Result<T & { id: string }> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return fail(`${what} is not valid JSON`);
  }
  if (!isRecord(value)) return fail(`${what} is not a JSON object`);
  if (value.id !== expectedId) return fail(`${what} is corrupt: id does not match its file name ${expectedId}`);
  const checked = checkShape(shape, value);
  return checked.ok ? ok({ id: expectedId, ...checked.value }) : fail(`${what} is corrupt: ${checked.reason}`);
}

/** Parses and checks a pending record read from the file named after `expectedId`. */
export function parsePending(json: string, expectedId: string): Result<PendingApproval> {
  return parseRecord(json, expectedId, `pending approval ${expectedId}`, PendingShape);
}

/** Parses and checks a resolution record read from the file named after `expectedId`. */
export function parseResolution(json: string, expectedId: string): Result<Resolution> {
  return parseRecord(json, expectedId, `resolution of ${expectedId}`, ResolutionShape);
}
