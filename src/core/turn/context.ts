// What a turn-level verifier sees: the recent tool calls, the robustness profile and a
// per-session state store passed in, so the verifiers themselves hold no mutable state.
import { canonicalJson } from '../crypto/canonical-json.js';
import { sha256Hex } from '../crypto/sha256.js';
import type { ToolKind } from '../event.js';
import type { VerifierPosture } from '../verifier-chain.js';

/** One tool call as the turn verifiers remember it: small, hashable, JSON-serialisable. */
export interface ToolCallRecord {
  /** The agent's own tool name (e.g. `Bash`, `Edit`). */
  name: string;
  /** Hex sha256 of `canonicalJson(args)`: equal arguments give equal hashes whatever their key order. */
  args_hash: string;
  kind: ToolKind;
  /** Writes files: a write tool, or a shell command recognised as a write. */
  mutation: boolean;
  /** Runs code: a shell command that is not a pure write, or a gate producer run. */
  execution: boolean;
  /** The call returned an error (set once the result is known). */
  failed?: boolean;
}

/** What the caller knows about a call beyond its kind; missing flags follow from the kind. */
export interface ToolCallFlags {
  mutation?: boolean;
  execution?: boolean;
  failed?: boolean;
}

/**
 * Hex sha256 of the canonical JSON of `args`. Hook input is JSON already; a library
 * caller's object may hold what JSON cannot (`undefined` fields, a Date), which is
 * normalised the way `JSON.stringify` does rather than thrown on. No input hashes as `null`.
 */
export function hashArgs(args: unknown): string {
  let text: string;
  try {
    text = canonicalJson(args === undefined ? null : args);
  } catch {
    text = canonicalJson(JSON.parse(JSON.stringify(args) ?? 'null'));
  }
  return sha256Hex(text);
}

/**
 * Builds a record of one call, hashing its arguments. By default a write tool is a
 * mutation and a shell command an execution; pass flags when the caller knows better
 * (e.g. `sed -i` recognised as a write: `{mutation: true, execution: false}`).
 * @example toolCallRecord('Bash', {command: 'npm test'}, 'shell')
 */
export function toolCallRecord(name: string, args: unknown, kind: ToolKind, flags: ToolCallFlags = {}): ToolCallRecord {
  const rec: ToolCallRecord = {
    name,
    args_hash: hashArgs(args),
    kind,
    mutation: flags.mutation ?? kind === 'write',
    execution: flags.execution ?? kind === 'shell',
  };
  if (flags.failed !== undefined) rec.failed = flags.failed;
  return rec;
}

/** Thresholds for the tool-loop watchdog, per session. */
export interface RobustnessProfile {
  /** Identical consecutive calls at which the call is refused with feedback. */
  repeat_threshold: number;
  /** Identical consecutive calls at which the session is halted; always above `repeat_threshold`. */
  halt_threshold: number;
  /** Tool calls allowed in the session; `null` = no limit. */
  max_tool_calls: number | null;
  /** Consecutive failed calls at which the model is told to step back; `null` = off. */
  failure_threshold: number | null;
}

/** Five identical calls in a row is past any plausible retry of a flaky command, yet early enough to save the budget. */
const DEFAULT_REPEAT_THRESHOLD = 5;
/** Three more identical calls after the first refusal means the feedback is not being heeded. */
const DEFAULT_HALT_THRESHOLD = 8;
/** Long tasks legitimately make hundreds of calls, so no cap unless the operator sets one. */
const DEFAULT_MAX_TOOL_CALLS: number | null = null;
/** Failing calls are normal while debugging, so the failure-run check is opt-in. */
const DEFAULT_FAILURE_THRESHOLD: number | null = null;

/** The profile used when the operator sets nothing. */
export const DEFAULT_PROFILE: Readonly<RobustnessProfile> = Object.freeze({
  repeat_threshold: DEFAULT_REPEAT_THRESHOLD,
  halt_threshold: DEFAULT_HALT_THRESHOLD,
  max_tool_calls: DEFAULT_MAX_TOOL_CALLS,
  failure_threshold: DEFAULT_FAILURE_THRESHOLD,
});

/** Sane ranges. Repeat ≥ 2 because one call is not a repeat; the upper bounds stop a typo from disabling a check. */
const PROFILE_LIMITS = Object.freeze({
  repeat: { min: 2, max: 50 },
  /** The lower bound of halt is `repeat_threshold + 1`, so a refusal always comes before a halt. */
  halt: { max: 200 },
  maxToolCalls: { min: 1, max: 100_000 },
  failure: { min: 1, max: 100 },
});

function clampInt(key: string, raw: unknown, fallback: number, min: number, max: number, notes: string[]): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    if (raw !== undefined) notes.push(`${key} ${String(raw)} is not a number; using ${fallback}`);
    return Math.min(max, Math.max(min, fallback));
  }
  const n = Math.floor(raw);
  const clamped = Math.min(max, Math.max(min, n));
  if (clamped !== raw) notes.push(`${key} ${raw} clamped to ${clamped} (allowed ${min}..${max})`);
  return clamped;
}

function clampNullable(key: string, raw: unknown, fallback: number | null, min: number, max: number, notes: string[]): number | null {
  if (raw === null) return null;
  if (raw === undefined && fallback === null) return null;
  return clampInt(key, raw, fallback ?? min, min, max, notes);
}

/**
 * Fills a partial profile with defaults and clamps every value into its sane range,
 * returning a note for each value it changed (for the operator, not the model).
 * @example clampProfile({repeat_threshold: 1}) // {profile: {repeat_threshold: 2, …}, notes: ['repeat_threshold 1 clamped to 2 (allowed 2..50)']}
 */
export function clampProfile(partial: Partial<RobustnessProfile> = {}): { profile: RobustnessProfile; notes: string[] } {
  const notes: string[] = [];
  const L = PROFILE_LIMITS;
  const repeat = clampInt('repeat_threshold', partial.repeat_threshold, DEFAULT_REPEAT_THRESHOLD, L.repeat.min, L.repeat.max, notes);
  const halt = clampInt('halt_threshold', partial.halt_threshold, Math.max(DEFAULT_HALT_THRESHOLD, repeat + 1), repeat + 1, L.halt.max, notes);
  const maxCalls = clampNullable('max_tool_calls', partial.max_tool_calls, DEFAULT_MAX_TOOL_CALLS, L.maxToolCalls.min, L.maxToolCalls.max, notes);
  const failure = clampNullable('failure_threshold', partial.failure_threshold, DEFAULT_FAILURE_THRESHOLD, L.failure.min, L.failure.max, notes);
  return { profile: { repeat_threshold: repeat, halt_threshold: halt, max_tool_calls: maxCalls, failure_threshold: failure }, notes };
}

/** How many recent calls the context carries: enough to see a loop at the default thresholds, small enough to persist per hook call. */
export const RECENT_TOOL_CALLS = 8;

/** Everything a turn verifier is given. Extra, verifier-specific inputs come through getters. */
export interface TurnVerifyContext {
  session_id: string;
  /** Model round-trips so far in this turn. */
  iterations: number;
  /** Tool calls so far in the session, counting the one being judged. */
  tool_calls_made: number;
  final_text: string | null;
  /** The last `RECENT_TOOL_CALLS` calls, oldest first; mid-turn the last one is the call being judged. */
  recent_tool_calls: ToolCallRecord[];
  /** `end_turn` when the model wants to stop; `null` mid-turn (between "think" and "act"). */
  stop_reason: 'end_turn' | null;
  profile: RobustnessProfile;
}

/** Returns a new list with `rec` appended, keeping only the last `RECENT_TOOL_CALLS`. */
export function pushRecent(list: readonly ToolCallRecord[], rec: ToolCallRecord): ToolCallRecord[] {
  const next = [...list, rec];
  return next.length > RECENT_TOOL_CALLS ? next.slice(next.length - RECENT_TOOL_CALLS) : next;
}

/**
 * Per-session key-value state, owned by the caller: the Claude Code hooks back it with a
 * file, a library loop with memory. Values must be JSON-serialisable.
 */
export interface TurnStateStore {
  get<T>(key: string): T | undefined;
  set(key: string, value: unknown): void;
}

/** An in-memory store for one session of a library agent loop. */
export function memoryStateStore(initial: Record<string, unknown> = {}): TurnStateStore {
  const map = new Map<string, unknown>(Object.entries(initial));
  return {
    get: <T>(key: string) => map.get(key) as T | undefined,
    set: (key, value) => {
      map.set(key, value);
    },
  };
}

/** Options shared by the verifier factories. */
export interface VerifierOptions {
  /** Default fail-open: these checks advise the agent, and a bug in one must not wedge it. */
  posture?: VerifierPosture;
}
