// What `gatehouse run` tells its user while the agent works: each refusal, each stop refused
// and each call waiting for a person, one line on stderr as it happens, read from the audit log
// and the approval queue, never from the agent's own output. A live view, not evidence: outside
// a sandbox the agent can append to the log; the end-of-session check and `audit verify` count.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { describeDecision } from '../core/decision-words.js';
import { safeForDisplay } from '../core/display.js';
import { oneLine } from '../core/notify/message.js';
import { ApprovalQueue } from '../runtime/approvals/index.js';
import { LOG_FILE } from '../runtime/audit/log.js';
import { inspectEvent, MAX_EVENT_BYTES } from '../runtime/audit/record.js';
import { watchDirs } from '../runtime/approvals/dir-watch.js';

/** How often the log is looked at besides fs.watch: a person reading a terminal does not notice a quarter second. */
const POLL_MS = 250;
/** Longest line printed: a refusal's reason is for the agent; the user needs its gist and where to read the rest. */
const MAX_LINE_CHARS = 240;
/** Most bytes read from the log per look: a burst of events is printed over a few looks, never all held at once. */
const MAX_READ_BYTES = 1 << 20;

/** What {@link startRunProgress} needs. */
export interface RunProgressOptions {
  projectState: string;
  sessionId: string;
  worktree: string;
  /** One whole line per call (stderr in `gatehouse run`). */
  write: (line: string) => void;
}

type LoggedEvent = { type?: unknown; session_id?: unknown; data?: unknown };

/** The line for an audit event of this session worth telling the user about, or null. */
function lineFor(e: LoggedEvent, worktree: string): string | null {
  const d = (typeof e.data === 'object' && e.data !== null ? e.data : {}) as Record<string, unknown>;
  const tell =
    (e.type === 'gate_decision' && d.decision === 'block') ||
    (e.type === 'completion_verdict' && d.where !== 'end_of_session' && (d.verdict === 'fail' || d.verdict === 'halt' || d.verdict === 'unverified')) ||
    e.type === 'human_approval_decision' ||
    e.type === 'tamper_detected';
  if (!tell) return null;
  const { what, reason } = describeDecision({ type: String(e.type), data: d }, worktree);
  const gist = reason === '' ? '' : ` — ${oneLine(reason, MAX_LINE_CHARS)}`;
  return safeForDisplay(`${what}${gist}`);
}

/**
 * Starts telling; the returned function stops it. Only what happens from now on is told.
 * @example const stop = startRunProgress({ projectState, sessionId, worktree, write: (l) => process.stderr.write(`${l}\n`) })
 */
export function startRunProgress(opts: RunProgressOptions): () => void {
  const logFile = join(opts.projectState, 'audit', LOG_FILE);
  const say = (line: string): void => opts.write(`gatehouse: ${line}`);
  const log = new LogFollower(logFile, sizeOf(logFile));
  const readLog = (): void => {
    for (const text of log.newLines()) {
      let e: LoggedEvent;
      try {
        e = JSON.parse(text) as LoggedEvent;
      } catch {
        continue;
      }
      if (e.session_id !== opts.sessionId || inspectEvent(e) !== null) continue;
      const line = lineFor(e, opts.worktree);
      if (line !== null) say(line);
    }
  };

  const queue = new ApprovalQueue(opts.projectState);
  const told = new Set(queue.list({ session: opts.sessionId }).map((p) => p.id));
  const readQueue = (): void => {
    for (const p of queue.list({ session: opts.sessionId })) {
      if (told.has(p.id)) continue;
      told.add(p.id);
      say(safeForDisplay(`waiting for a person: ${oneLine(p.summary, MAX_LINE_CHARS)} — answer with \`gatehouse approve ${p.id}\` (or in the dashboard)`));
    }
  };

  // Telling is a courtesy: nothing in the state folder (the agent's to break outside a sandbox) may stop the run.
  const safely = (fn: () => void) => (): void => {
    try {
      fn();
    } catch {
      // The next look may work; the run's own verdict does not depend on this.
    }
  };
  const logWatch = watchDirs([join(opts.projectState, 'audit')], safely(readLog), { pollMs: POLL_MS, fsWatch: true });
  const queueWatch = queue.watch(safely(readQueue));
  return () => {
    logWatch.close();
    queueWatch.close();
    // What happened just before the end is still told.
    safely(readLog)();
  };
}

/**
 * Follows an append-only file from an offset, whole lines only. It opens only a regular file
 * (never a FIFO or a device planted in its place, which would block the run), reads at most
 * {@link MAX_READ_BYTES} per look, and drops a line longer than an event can be.
 */
class LogFollower {
  private rest = Buffer.alloc(0);
  private skipping = false;

  constructor(
    private readonly file: string,
    private offset: number,
  ) {}

  newLines(): string[] {
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch {
      return [];
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return [];
      // A log that shrank was replaced (a restore, a repair): read the new one from its start.
      if (st.size < this.offset) {
        this.offset = 0;
        this.rest = Buffer.alloc(0);
      }
      const buf = Buffer.alloc(Math.min(MAX_READ_BYTES, st.size - this.offset));
      const n = buf.length === 0 ? 0 : readSync(fd, buf, 0, buf.length, this.offset);
      this.offset += n;
      return this.split(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
  }

  private split(chunk: Buffer): string[] {
    const lines: string[] = [];
    let data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
      if (!this.skipping) lines.push(data.subarray(0, nl).toString('utf8'));
      this.skipping = false;
      data = data.subarray(nl + 1);
    }
    // No event is this long: drop it up to its newline rather than hold it.
    if (data.length > MAX_EVENT_BYTES) {
      this.skipping = true;
      data = Buffer.alloc(0);
    }
    this.rest = Buffer.from(data);
    return lines;
  }
}

function sizeOf(file: string): number {
  try {
    const st = lstatSync(file);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}
