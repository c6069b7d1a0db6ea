// One audit event as a line: its fields, how a new one is sealed onto the chain, and how
// a line read back is checked. Writer and verifier share this file so they cannot drift.
import { sha256Hex } from '../../core/crypto/sha256.js';
import { canonicalJson, isCanonicalJson, keysSorted } from '../../core/crypto/canonical-json.js';
import { isAuditEventType, validateEventData, type AuditEventDataMap, type AuditEventType } from './events.js';
import { isoTime } from '../../core/iso-time.js';

/** `prev_hash` of the first event (seq 0). */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * Who caused an event: a principal kind, a colon, then 1–128 characters of
 * `[A-Za-z0-9._@/:+-]`, e.g. `os-user:alice`, `system:hook-gate`, `token:ci`,
 * `dashboard-operator:bob@example.com`, `link:ntfy`. Names outside that set are the caller's to encode.
 */
const ACTOR_PATTERN = /^(os-user|system|token|dashboard-operator|link):[A-Za-z0-9._@/:+-]{1,128}$/;

/** The session id rule of the hook path (DESIGN: "The flow of one hook call"). */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** ISO 8601 UTC, as `Date.prototype.toISOString` writes it (milliseconds optional). */
const TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

// An event is a few hundred bytes; a gate decision over thousands of paths still fits.
// The bound keeps every tail read and line read of the log small.
export const MAX_EVENT_BYTES = 1024 * 1024;

/** One event of the audit chain, exactly as its line holds it. */
export interface AuditEvent<T extends AuditEventType = AuditEventType> {
  /** 0-based position in the log; also the event's Merkle leaf index. */
  seq: number;
  time: string;
  type: T;
  actor: string;
  session_id: string | null;
  data: AuditEventDataMap[T];
  /** `hash` of the event before this one; {@link GENESIS_HASH} for seq 0. */
  prev_hash: string;
  /** Hex SHA-256 of the canonical JSON of this event without `hash`. */
  hash: string;
  /**
   * Only in the team log: the machine's local event this one was forwarded from. Covered by
   * `hash`, so the attribution cannot be changed without breaking the chain. A file store's own
   * events never carry it.
   */
  origin?: EventOrigin;
}

/** Where a team log event came from: the machine, the project, and the local event (its seq, prev_hash and hash). */
export interface EventOrigin {
  /** `m-` and 16 hex digits (store/machine.ts). */
  machine: string;
  host: string;
  /** The project's key (state-base.ts projectKey). */
  project: string;
  seq: number;
  prev_hash: string;
  /** The local event's `hash`: recomputable from this event's fields with `seq` and `prev_hash` above. */
  event_hash: string;
}

/** What a caller supplies to append an event; the log fills in seq, hashes and time. */
export interface AppendInput<T extends AuditEventType = AuditEventType> {
  type: T;
  actor: string;
  session_id: string | null;
  data: AuditEventDataMap[T];
  /** Defaults to now. */
  time?: string;
  /** Team log only: the local event it copies (see {@link AuditEvent.origin}). */
  origin?: EventOrigin;
}

const EVENT_KEYS = ['actor', 'data', 'hash', 'prev_hash', 'seq', 'session_id', 'time', 'type'];
const ORIGIN_KEYS = ['event_hash', 'host', 'machine', 'prev_hash', 'project', 'seq'];
const MACHINE_PATTERN = /^m-[0-9a-f]{16}$/;
// A host name or project key: printable, no quote or backslash, so the line stays plain to read and compare.
const ORIGIN_NAME = /^[A-Za-z0-9._@:+-]{1,255}$/;

/** What is wrong with an event's `origin`, or null. */
function originProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'origin is not an object';
  const o = value as Record<string, unknown>;
  if (Object.keys(o).length !== ORIGIN_KEYS.length || !ORIGIN_KEYS.every((k) => k in o)) return `origin has exactly the fields ${ORIGIN_KEYS.join(', ')}`;
  if (typeof o.machine !== 'string' || !MACHINE_PATTERN.test(o.machine)) return 'origin.machine is not a machine id';
  if (typeof o.host !== 'string' || !ORIGIN_NAME.test(o.host)) return 'origin.host is not a host name';
  if (typeof o.project !== 'string' || !ORIGIN_NAME.test(o.project)) return 'origin.project is not a project key';
  if (!Number.isSafeInteger(o.seq) || (o.seq as number) < 0) return 'origin.seq is not a non-negative integer';
  // Length only, as for the event's own hashes (see inspectEvent): the team verify recomputes
  // event_hash from the line and links each prev_hash to the event_hash before it, so both are
  // hex wherever it passes. The writer copies both from a local event it has just verified.
  if (typeof o.prev_hash !== 'string' || o.prev_hash.length !== 64) return 'origin.prev_hash is not 64 hex digits';
  if (typeof o.event_hash !== 'string' || o.event_hash.length !== 64) return 'origin.event_hash is not 64 hex digits';
  return null;
}

/** Drops object properties whose value is `undefined`, as JSON.stringify would. */
function withoutUndefined(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(withoutUndefined);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withoutUndefined(v);
  return out;
}

/** Checks the fields of a parsed line; returns what is wrong, or null. */
export function inspectEvent(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the line is not a JSON object';
  const e = value as Record<string, unknown>;
  // Each of the eight is required by a check below, so a count of eight means exactly them;
  // a ninth may only be a team log's `origin`.
  const withOrigin = e.origin !== undefined;
  if (Object.keys(e).length !== EVENT_KEYS.length + (withOrigin ? 1 : 0)) return `an event has exactly the fields ${EVENT_KEYS.join(', ')} (and origin in a team log)`;
  if (withOrigin) {
    const problem = originProblem(e.origin);
    if (problem !== null) return problem;
  }
  if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 0) return 'seq is not a non-negative integer';
  if (typeof e.time !== 'string' || !TIME_PATTERN.test(e.time)) return 'time is not an ISO 8601 UTC timestamp';
  if (typeof e.actor !== 'string' || !ACTOR_PATTERN.test(e.actor)) return `actor ${JSON.stringify(e.actor)} is not a principal id`;
  if (e.session_id !== null && (typeof e.session_id !== 'string' || !SESSION_ID_PATTERN.test(e.session_id))) return 'session_id is not a session id or null';
  // Length only: that they are hex follows from the checks that must come after this one
  // (`hash` equals a recomputed hex digest, `prev_hash` the previous event's hash), and
  // verify runs this on every line. sealEvent computes both itself.
  if (typeof e.prev_hash !== 'string' || e.prev_hash.length !== 64) return 'prev_hash is not 64 hex digits';
  if (typeof e.hash !== 'string' || e.hash.length !== 64) return 'hash is not 64 hex digits';
  if (!isAuditEventType(e.type)) return `type ${JSON.stringify(e.type)} is not a registered event type`;
  return validateEventData(e.type, e.data);
}

/**
 * Whether `text` is exactly the canonical JSON of `e`, an event that passed
 * {@link inspectEvent}. Its top-level values are plain ASCII by the patterns above
 * (a stray quote in a hash only makes this false), so only `data` needs serialising;
 * native JSON.stringify writes it canonically once its keys are known to be sorted.
 */
export function isCanonicalEventLine(e: AuditEvent, text: string): boolean {
  if (text.includes('\\ud') || !keysSorted(e.data)) return isCanonicalJson(text, e);
  const sid = e.session_id === null ? 'null' : `"${e.session_id}"`;
  // origin's values are plain ASCII by originProblem; only its key order needs writing out.
  const o = e.origin;
  const origin = o === undefined ? '' : `,"origin":{"event_hash":"${o.event_hash}","host":"${o.host}","machine":"${o.machine}","prev_hash":"${o.prev_hash}","project":"${o.project}","seq":${o.seq}}`;
  return (
    text === `{"actor":"${e.actor}","data":${JSON.stringify(e.data)},"hash":"${e.hash}"${origin},"prev_hash":"${e.prev_hash}","seq":${e.seq},"session_id":${sid},"time":"${e.time}","type":"${e.type}"}`
  );
}

/**
 * Builds the event at `seq` after `prevHash` and its canonical line (no newline).
 * Throws on invalid input: callers pass values they built, so a bad one is a bug.
 */
export function sealEvent<T extends AuditEventType>(input: AppendInput<T>, seq: number, prevHash: string, now: () => Date = () => new Date()): { event: AuditEvent<T>; line: string } {
  const body = {
    seq,
    time: input.time ?? isoTime(now()),
    type: input.type,
    actor: input.actor,
    session_id: input.session_id,
    data: withoutUndefined(input.data) as AuditEventDataMap[T],
    prev_hash: prevHash,
    // Absent, not undefined, for the file store: its lines stay exactly as they were.
    ...(input.origin === undefined ? {} : { origin: input.origin }),
  };
  const hash = sha256Hex(canonicalJson(body));
  const event: AuditEvent<T> = { ...body, hash };
  const problem = inspectEvent(event);
  if (problem !== null) throw new Error(`audit: cannot append ${String(input.type)}: ${problem}`);
  const line = canonicalJson(event);
  if (Buffer.byteLength(line, 'utf8') > MAX_EVENT_BYTES) throw new Error(`audit: a ${input.type} event is larger than ${MAX_EVENT_BYTES} bytes`);
  return { event, line };
}

// In a canonical line the top-level keys are sorted: actor, data, hash, prev_hash, …
// `,"hash":"` cannot occur inside a JSON string (quotes are escaped) and the keys after
// it are origin, prev_hash, seq, session_id, time, type (origin's own keys end in `_hash`
// or follow a `{`), so its last occurrence is the top-level one.
const HASH_FIELD = ',"hash":"';
const HASH_FIELD_CHARS = HASH_FIELD.length + 64 + 1;

/**
 * The hash a canonical event line should carry: SHA-256 of the line with its `"hash"`
 * member cut out, which is the canonical JSON of the event without `hash`. Null when
 * the line has no top-level hash member where one belongs.
 */
export function recomputeHash(line: string): string | null {
  const at = line.lastIndexOf(HASH_FIELD);
  if (at < 0 || at + HASH_FIELD_CHARS > line.length) return null;
  return sha256Hex(line.slice(0, at) + line.slice(at + HASH_FIELD_CHARS));
}
