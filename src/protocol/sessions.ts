// The recorded Gatehouse sessions on the wire: the project's sessions as `sessions.list`
// shows them, and one session's record (timeline, verdict, worktree diff) as `sessions.show` does.
import { z } from 'zod';

/** One recorded session, from its folder in the project state (meta.json: no digest covers it, so every field is display text). */
export const SessionSummary = z.strictObject({
  id: z.string(),
  agent: z.string(),
  /** `active` or `ended` as meta.json says. */
  status: z.string(),
  /** ISO 8601. */
  started_at: z.string(),
  ended_at: z.string().nullable(),
  /** The end verdict meta.json records (`passed`, `failed`, `halted`, `not run`), null before one ran. */
  verdict: z.string().nullable(),
  /** The live PTY of this server that runs the session (spawned from the dashboard), else null. */
  pty_id: z.string().nullable(),
  /** Why the session's meta.json could not be read; the other fields are then placeholders. */
  problem: z.string().nullable(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** `sessions.list`: newest first, as many as fit a frame; `omitted` counts the older ones left out. */
export const SessionList = z.strictObject({ sessions: z.array(SessionSummary), omitted: z.number().int() });
export type SessionList = z.infer<typeof SessionList>;

/** One decision of the session, in words (core/decision-words.ts). */
export const TimelineEntry = z.strictObject({
  /** The event's position in the audit log. */
  seq: z.number().int(),
  time: z.string(),
  type: z.enum(['gate_decision', 'completion_verdict', 'human_approval_decision', 'tamper_detected']),
  what: z.string(),
  reason: z.string(),
  /** Who decided an approval (its principal), else null. */
  by: z.string().nullable(),
  /** A refusal, rejection, failed check or tampering: shown as such. */
  refused: z.boolean(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

/** The session's end verdict: from the audit log's signed end-of-session check, else meta.json's unsigned word. */
const SessionVerdict = z.strictObject({
  word: z.string(),
  summary: z.string(),
  /** `audit`: the signed record; `meta`: only meta.json says so; `not_run`: the command never started, nothing was checked. */
  source: z.enum(['audit', 'meta', 'not_run']),
  /** What meta.json says when it disagrees with the signed record, else null. */
  meta_says: z.string().nullable(),
  /** The evidence bundle of the end-of-session check (`gatehouse evidence verify <id>`), when one was sealed. */
  evidence_id: z.string().nullable(),
});

/**
 * How one changed file's difference is shown: `text` a unified diff (`truncated` when cut to fit),
 * `binary` named only, `unknown` when its bytes at baseline cannot be known, `omitted` when
 * not read (too large, not a regular file, outside the worktree, over the response budget).
 */
export const FileDiff = z.strictObject({
  path: z.string(),
  change: z.enum(['created', 'modified', 'deleted']),
  shown: z.enum(['text', 'binary', 'unknown', 'omitted']),
  /** The unified diff (`text` only), else ''. */
  diff: z.string(),
  truncated: z.boolean(),
  /** Why it is not shown as text, in words; '' for `text`. */
  note: z.string(),
});
export type FileDiff = z.infer<typeof FileDiff>;

/** The worktree's changes since the session's baseline; `problem` says why there are none to show (no trusted baseline, …). */
export const SessionDiff = z.strictObject({
  files: z.array(FileDiff),
  /** Changed files in all (some may be left out of `files` to fit a frame). */
  total: z.number().int(),
  problem: z.string().nullable(),
});
export type SessionDiff = z.infer<typeof SessionDiff>;

/** `sessions.show {id}`. */
export const SessionDetail = z.strictObject({
  session: SessionSummary,
  worktree: z.string(),
  /** The newest decisions, oldest first, and how many the log holds for the session in all. */
  timeline: z.array(TimelineEntry),
  timeline_total: z.number().int(),
  verdict: SessionVerdict.nullable(),
  /** Whether the project's audit log verifies with its keys; if not, the first problem. */
  audit: z.strictObject({ verified: z.boolean(), problem: z.string().nullable() }),
  diff: SessionDiff,
});
export type SessionDetail = z.infer<typeof SessionDetail>;
