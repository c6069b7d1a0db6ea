// Reads what the turn-level verifiers need from an agent's transcript file, touching as
// little of it as possible: transcripts run to megabytes, and a Stop pays for every one.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { TASK_TOOL_NAMES, taskFactsOfLine, taskListFromCalls, type ExecItem, type TaskToolCall, type ToolOutcome } from '../core/turn/index.js';

/** The newest bytes of a transcript read at most: more than any turn's worth of lines. */
const MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024;

const NEWLINE = 0x0a;

/** The byte range of the line around `at` (without its newline). */
function lineAround(bytes: Buffer, at: number): [start: number, end: number] {
  const start = bytes.lastIndexOf(NEWLINE, at) + 1;
  const newline = bytes.indexOf(NEWLINE, at);
  return [start, newline < 0 ? bytes.length : newline];
}

/** A task tool's name as a JSON string (`"TodoWrite"`): the quotes leave out prose that merely mentions one. */
const TASK_TOOL_NAME_PATTERN = new RegExp(`"(?:${TASK_TOOL_NAMES.join('|')})"`, 'g');

/**
 * The starts and ends of the lines that name a task tool, in file order: only those lines
 * are decoded (decoding a multi-megabyte transcript with any non-ASCII text in it costs more
 * than everything else a Stop does). The search is one regular-expression pass over a latin1
 * view of the bytes (one character per byte, so its positions are byte offsets): about the
 * cost of one Buffer search, where one per tool name would cost three.
 */
function taskToolLines(bytes: Buffer): [number, number][] {
  const text = bytes.toString('latin1');
  const pattern = new RegExp(TASK_TOOL_NAME_PATTERN);
  const lines: [number, number][] = [];
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const line = lineAround(bytes, m.index);
    lines.push(line);
    pattern.lastIndex = line[1];
  }
  return lines;
}

/**
 * The result of call `id` in the lines after `from`: the first main-agent user line that
 * answers it, found by the id's JSON text and decoded only then. Undefined while it is not
 * in the transcript yet.
 */
function outcomeAfter(bytes: Buffer, id: string, from: number): ToolOutcome | undefined {
  const needle = Buffer.from(JSON.stringify(id));
  for (let at = bytes.indexOf(needle, from); at >= 0;) {
    const [start, end] = lineAround(bytes, at);
    const hit = taskFactsOfLine(bytes.toString('utf8', start, end))?.outcomes.find(([answered]) => answered === id);
    if (hit) return hit[1];
    at = bytes.indexOf(needle, end);
  }
  return undefined;
}

/**
 * The last `max` bytes of the regular file at `path`, or null. The path comes from the hook
 * input, which the agent controls: a FIFO, a device or a growing special file must never
 * block or exhaust the process reading it (the supervisor, for a sandboxed session).
 */
export function readTail(path: string, max: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const size = Math.min(st.size, max);
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, st.size - size + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The task-tool calls in a transcript's tail and the results found for them so far. */
interface TaskCalls {
  calls: TaskToolCall[];
  outcomes: Map<string, ToolOutcome>;
}

function readTaskCalls(path: string): TaskCalls | null {
  const bytes = readTail(path, MAX_TRANSCRIPT_BYTES);
  if (bytes === null) return null;
  const calls: TaskToolCall[] = [];
  const seen = new Set<string>();
  const outcomes = new Map<string, ToolOutcome>();
  for (const [start, end] of taskToolLines(bytes)) {
    for (const call of taskFactsOfLine(bytes.toString('utf8', start, end))?.calls ?? []) {
      if (seen.has(call.id)) continue;
      seen.add(call.id);
      calls.push(call);
      const outcome = outcomeAfter(bytes, call.id, end);
      if (outcome) outcomes.set(call.id, outcome);
    }
  }
  return { calls, outcomes };
}

/** The agent's current task list from its transcript; null when there is none or the file cannot be read. */
export function readTranscriptTodos(path: string | null): ExecItem[] | null {
  if (!path) return null;
  const read = readTaskCalls(path);
  return read === null ? null : taskListFromCalls(read.calls, read.outcomes);
}

/**
 * How long a Stop waits for the transcript to catch up. Claude Code writes it behind its hooks,
 * in batches: at a Stop the turn's last task-tool call, or its result, may not be in the file
 * yet (observed with 2.1.328: the TodoWrite line written, its result not). On an idle machine the
 * lag is tens of milliseconds; on a loaded one it passed 1.5 s (2 cores running the test suite
 * beside it: a completed task was judged open, and the agent refused a stop for nothing). Past
 * this the list is judged as it stands. The price: a task call that never reaches this transcript
 * (a subagent's) makes the next Stop wait this long, once.
 */
const TRANSCRIPT_SETTLE_MS = 3000;
/** How often a transcript that is behind is read again. */
const SETTLE_POLL_MS = 20;

/** A task list read once the transcript holds what the gate saw; `settled` false when it never did. */
export interface SettledTodos {
  items: ExecItem[] | null;
  settled: boolean;
}

/**
 * The agent's task list once the transcript has caught up with the turn: every task-tool call
 * in it has its result, and so has `awaitedCallId`, the last task-tool call the gate allowed
 * (its tool_use id), which may not be in the file at all yet. At a Stop every call of the turn
 * has been answered, so a missing result only means the file is behind; read too early, the
 * newest call looks unanswered and the list goes unjudged.
 * @example await settledTranscriptTodos(event.transcriptPath, 'toolu_01…')
 */
export async function settledTranscriptTodos(path: string | null, awaitedCallId: string | null, budgetMs = TRANSCRIPT_SETTLE_MS): Promise<SettledTodos> {
  if (!path) return { items: null, settled: true };
  const deadline = Date.now() + budgetMs;
  let read = readTaskCalls(path);
  let seen = sizeAndTime(path);
  for (;;) {
    if (read === null) return { items: null, settled: true };
    const { calls, outcomes } = read;
    const settled = calls.every((c) => outcomes.has(c.id)) && (awaitedCallId === null || outcomes.has(awaitedCallId));
    if (settled || Date.now() >= deadline) return { items: taskListFromCalls(calls, outcomes), settled };
    await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
    // Read again only once the file changed: a poll of an unchanged 32 MB tail costs a full read for nothing.
    const now = sizeAndTime(path);
    if (now !== seen) {
      seen = now;
      read = readTaskCalls(path);
    }
  }
}

/** The file's size and change time, to tell whether it changed since the last look (null when it cannot be seen). */
function sizeAndTime(path: string): string | null {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ino}`;
  } catch {
    return null;
  }
}
