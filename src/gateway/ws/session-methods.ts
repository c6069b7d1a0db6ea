// `sessions.list` and `sessions.show` over the WebSocket: the project's recorded Gatehouse
// sessions (CLI ones too) from its state folder, so they outlive this server, each fitted to one frame.
import { z } from 'zod';
import { sessionRecord, type RecordLimits } from '../../gate/session-record.js';
import type { SessionDetail, SessionList, SessionSummary } from '../../protocol/sessions.js';
import { listSessions } from '../../runtime/session-list.js';
import { SessionStore } from '../../runtime/session-store.js';
import { isSafeSessionId } from '../../runtime/state-dir.js';
import { RpcError } from './errors.js';
import { MAX_FRAME_BYTES } from './frames.js';
import type { Method, MethodContext } from './method.js';
import { defineMethod } from './method.js';

/** Room for a result in one frame: the frame minus the response envelope. */
const RESULT_BUDGET_BYTES = MAX_FRAME_BYTES - 1024;

/**
 * What one `sessions.show` reads and sends. The diff gets about half a frame, the timeline the
 * rest; {@link fitDetail} then trims whatever still does not fit (multi-byte text, long reasons).
 */
const RECORD_LIMITS: RecordLimits = {
  timeline: 50,
  reasonChars: 1_500,
  maxFileBytes: 256 * 1024,
  maxEdits: 1_000,
  maxChars: 32 * 1024,
  // The end-of-session check has no limit; a dashboard click should not hold a walk of a huge tree open for longer.
  compareMs: 10_000,
};

const ShowParams = z.strictObject({
  id: z.string().refine(isSafeSessionId, { error: 'must be a session id (1-128 letters, digits, _ and -)' }),
});

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** The newest sessions that fit one frame; `omitted` counts the older ones left out. */
function fitSessions(all: readonly SessionSummary[], budget: number = RESULT_BUDGET_BYTES): SessionList {
  let used = 0;
  let kept = 0;
  for (const s of all) {
    used += bytes(s) + 1;
    if (used > budget) break;
    kept++;
  }
  return { sessions: all.slice(0, kept), omitted: all.length - kept };
}

/** Decisions kept while diff text is left out to make room: the newest tell how the session ended. */
const TIMELINE_KEPT = 10;

/**
 * A record cut to fit one frame: the oldest decisions go first down to the newest
 * {@link TIMELINE_KEPT} (the count stays in `timeline_total`), then the last shown diffs, each
 * said to be left out, then the remaining decisions, then the files past what fits.
 */
export function fitDetail(detail: SessionDetail, budget: number = RESULT_BUDGET_BYTES): SessionDetail {
  const fitted = { ...detail, timeline: [...detail.timeline], diff: { ...detail.diff, files: [...detail.diff.files] } };
  while (bytes(fitted) > budget) {
    const files = fitted.diff.files;
    let at = files.length - 1;
    while (at >= 0 && files[at]!.diff === '') at--;
    if (fitted.timeline.length > (at === -1 ? 0 : TIMELINE_KEPT)) {
      fitted.timeline.shift();
      continue;
    }
    // No diff text or decision left: the files past what fits are counted in `total`, not listed.
    if (at === -1) {
      if (files.pop() === undefined) break;
      continue;
    }
    files[at] = { ...files[at]!, shown: 'omitted', diff: '', truncated: false, note: 'left out: the rest of the record fills what one response can carry' };
  }
  return fitted;
}

/** The live (or still listed) PTY of this server running Gatehouse session `id`, newest first. */
function ptyOf(ctx: MethodContext): (id: string) => string | null {
  const ptys = ctx.manager.list().sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
  return (id) => ptys.find((p) => p.gatehouse_session === id)?.id ?? null;
}

/**
 * The `sessions.*` methods. They need the `pty` capability, the access token's: a record
 * shows the worktree's file contents, which the scoped (approvals) tokens are not for.
 */
export const SESSION_METHODS: Readonly<Record<string, Method>> = {
  'sessions.list': defineMethod('pty', z.strictObject({}), (ctx) => fitSessions(listSessions(ctx.projectState, ptyOf(ctx)))),
  'sessions.show': defineMethod('pty', ShowParams, async (ctx, p) => {
    const store = SessionStore.open(ctx.projectState, p.id);
    if (!store.ok) return new RpcError('no_such_session', `no Gatehouse session ${p.id} in this project: call sessions.list to see its sessions`);
    return fitDetail(await sessionRecord(store.value, ptyOf(ctx)(p.id), RECORD_LIMITS));
  }),
};
