// Per-session turn state kept between hook processes: recent tool calls, counters, the
// mutation track and verifier key/values. Read-modify-write under a lock (hooks run in parallel).
import { join } from 'node:path';
import type { ToolCallRecord, TurnStateStore } from '../core/turn/context.js';
import { EMPTY_MUTATION_TRACK, type MutationTrack } from '../core/turn/mutation-nudge.js';
import type { ToolRun } from '../core/turn/tool-loop.js';
import { withLock } from './audit/lock.js';
import { writeFileAtomic } from './fs-atomic.js';
import { appendSessionLog, SESSION_FILES } from './session-layout.js';
import { readSmallBytes } from './small-file.js';

/** Everything the turn verifiers need to remember for one session. */
export interface TurnState {
  tool_calls_made: number;
  recent: ToolCallRecord[];
  run: ToolRun | null;
  /** Consecutive failed tool results seen through PostToolUse. */
  failures: number;
  track: MutationTrack;
  /** Stop events seen (the turn's iterations, as far as hooks can tell). */
  stops: number;
  /** Consecutive refused stops, Gatehouse's own count. */
  consecutive_blocks: number;
  kv: Record<string, unknown>;
}

const STATE_FILE = 'turn-state.json';
const LOCK_FILE = 'turn-state.lock';
/** Hooks must never hang on a stuck lock: past this, work without it (a lost update costs little). */
const TURN_LOCK_TIMEOUT_MS = 2000;
/** Largest turn state read: it keeps a few recent calls; anything larger is not one Gatehouse wrote. */
const MAX_STATE_BYTES = 4 << 20;

/** The state of a session before its first hook call. */
export function emptyTurnState(): TurnState {
  return { tool_calls_made: 0, recent: [], run: null, failures: 0, track: { ...EMPTY_MUTATION_TRACK }, stops: 0, consecutive_blocks: 0, kv: {} };
}

/** Reads the session's turn state (empty when there is none yet or it is unreadable). */
export function readTurnState(sessionDir: string): TurnState {
  try {
    // Only a regular file: a FIFO planted in its place would hold every hook until the agent's timeout.
    const bytes = readSmallBytes(join(sessionDir, STATE_FILE), MAX_STATE_BYTES);
    if (bytes === null) return emptyTurnState();
    return { ...emptyTurnState(), ...(JSON.parse(bytes.toString('utf8')) as Partial<TurnState>) };
  } catch {
    return emptyTurnState();
  }
}

/**
 * Runs `fn` on the current state under the session's lock and saves what it returns. `fn`'s
 * result is the decision and always stands: a state that cannot be saved, or a lock that cannot
 * be had (timed out, or its file cannot be made), costs only bookkeeping, and is written to the
 * session log. Outside a sandbox the agent can break these files; it must never turn a refusal
 * into an allow by doing so. Errors `fn` itself throws propagate.
 * @example const stops = updateTurnState(dir, (s) => ({ state: { ...s, stops: s.stops + 1 }, result: s.stops + 1 }))
 */
export function updateTurnState<T>(sessionDir: string, fn: (state: TurnState) => { state: TurnState; result: T }): T {
  let ran = false;
  let decided: { result: T } | null = null;
  const run = (): T => {
    ran = true;
    const { state, result } = fn(readTurnState(sessionDir));
    decided = { result };
    try {
      writeFileAtomic(join(sessionDir, STATE_FILE), `${JSON.stringify(state)}\n`, { mode: 0o600, noSync: true });
    } catch (err) {
      unsaved(sessionDir, 'could not save the turn state', err);
    }
    return result;
  };
  try {
    return withLock(join(sessionDir, LOCK_FILE), run, TURN_LOCK_TIMEOUT_MS);
  } catch (err) {
    // After `fn` decided, only the lock's release failed; before it ran, the lock could not be had.
    if (decided !== null) {
      unsaved(sessionDir, 'could not release the turn-state lock', err);
      return (decided as { result: T }).result;
    }
    if (ran) throw err;
    unsaved(sessionDir, 'worked without the turn-state lock', err);
    return run();
  }
}

function unsaved(sessionDir: string, what: string, err: unknown): void {
  appendSessionLog(join(sessionDir, SESSION_FILES.log), { kind: 'state_error', what, error: err instanceof Error ? err.message : String(err) });
}

/** A key/value view over `state.kv` for verifiers that keep per-session flags. */
export function kvStore(state: TurnState): TurnStateStore {
  return {
    get: <V>(key: string) => state.kv[key] as V | undefined,
    set: (key: string, value: unknown) => {
      state.kv[key] = value;
    },
  };
}
