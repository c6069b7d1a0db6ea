// What `gatehouse run` tells its user while the agent works: each refusal, each stop refused
// and each call waiting for a person, one line on stderr as it happens, from the audit log and
// the approval queue (the records that count), never from the agent's own output.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { describeDecision } from '../core/decision-words.js';
import { safeForDisplay } from '../core/display.js';
import { oneLine } from '../core/notify/message.js';
import { ApprovalQueue } from '../runtime/approvals/index.js';
import { LOG_FILE } from '../runtime/audit/log.js';
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
  let offset = sizeOf(logFile);
  let rest = '';
  const say = (line: string): void => opts.write(`gatehouse: ${line}`);

  const readLog = (): void => {
    let fd: number;
    try {
      fd = openSync(logFile, 'r');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      // A log that shrank was replaced (a restore, a repair): read the new one from its start.
      if (size < offset) {
        offset = 0;
        rest = '';
      }
      while (offset < size) {
        const buf = Buffer.alloc(Math.min(MAX_READ_BYTES, size - offset));
        const n = readSync(fd, buf, 0, buf.length, offset);
        if (n <= 0) break;
        offset += n;
        const lines = (rest + buf.subarray(0, n).toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const text of lines) {
          let e: LoggedEvent;
          try {
            e = JSON.parse(text) as LoggedEvent;
          } catch {
            continue;
          }
          if (e.session_id !== opts.sessionId) continue;
          const line = lineFor(e, opts.worktree);
          if (line !== null) say(line);
        }
      }
    } finally {
      closeSync(fd);
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

  const logWatch = watchDirs([join(opts.projectState, 'audit')], readLog, { pollMs: POLL_MS, fsWatch: true });
  const queueWatch = queue.watch(readQueue);
  return () => {
    logWatch.close();
    queueWatch.close();
    // What happened just before the end is still told.
    readLog();
  };
}

function sizeOf(file: string): number {
  try {
    const fd = openSync(file, 'r');
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}
