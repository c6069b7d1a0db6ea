// The `pty.*` shapes on the wire: what `pty.spawn` takes, what a session looks like in
// `pty.spawn`/`pty.list`/`pty.spawned`, how it ended, and what `pty.attach` returns.
import { z } from 'zod';
import { SANDBOX_NETWORKS, type SandboxNetwork } from '../core/sandbox.js';
import { EXIT_REASONS, PTY_STATES } from './pty-states.js';

/** Why a session ended: on its own, closed by a client, evicted at the cap, or idle past the TTL. */
export const ExitReason = z.enum(EXIT_REASONS);
export type ExitReason = z.infer<typeof ExitReason>;

/** How a session ended; exactly one of `exit_code` and `signal` is set. */
export const ExitInfo = z.strictObject({
  exit_code: z.number().int().nullable(),
  /** Signal name, e.g. `SIGHUP` (or `signal 64` for a number with no name), when a signal ended the process. */
  signal: z.string().nullable(),
  reason: ExitReason,
});
export type ExitInfo = z.infer<typeof ExitInfo>;

/** One session as `pty.spawn`, `pty.list` and `pty.spawned` show it. */
export const PtyInfo = z.strictObject({
  id: z.string(),
  /** The command line as shown: values of `KEY=value` words and secret-named options read `***` (core/redact-argv.ts). */
  command: z.string(),
  args: z.array(z.string()),
  cwd: z.string(),
  pid: z.number().int(),
  rows: z.number().int(),
  cols: z.number().int(),
  /** ISO 8601. */
  created_at: z.string(),
  /** ISO 8601: the last output, input or resize. */
  last_activity_at: z.string(),
  state: z.enum(PTY_STATES),
  exit: ExitInfo.nullable(),
  /** Set for a gated session: `<agent> · <session id>`, plus the sandbox when there is one. */
  label: z.string().optional(),
  /** Set for a gated session: the id of the Gatehouse session it runs (`sessions.show`). */
  gatehouse_session: z.string().optional(),
});
export type PtyInfo = z.infer<typeof PtyInfo>;

const Geometry = z.int().positive();

/** `pty.spawn {session}`: run an agent under a Gatehouse session (its hooks rendered, its policy compiled). */
const SpawnSession = z.strictObject({
  agent: z.string().min(1),
  allow: z.array(z.string()).default([]),
  require: z.array(z.string()).default([]),
  // Strict: a sandbox asked for in words this server does not know is refused, never run without one.
  sandbox: z
    .strictObject(
      {
        network: z.enum(SANDBOX_NETWORKS as [SandboxNetwork, ...SandboxNetwork[]], { error: `expected one of ${SANDBOX_NETWORKS.join(', ')}` }).optional(),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? 'expected an object such as {"network": "none"}, or leave it out to run unsandboxed' : undefined) },
    )
    .optional(),
});

/**
 * The params of `pty.spawn`. String lengths need no caps of their own: the frame cap bounds
 * every request.
 */
export const SpawnParams = z.strictObject({
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().min(1).optional(),
  rows: Geometry.optional(),
  cols: Geometry.optional(),
  session: SpawnSession.optional(),
});
/** What a client sends (`allow` and `require` may be left out). */
export type SpawnParams = z.input<typeof SpawnParams>;

/** What `pty.attach` returns: the server-held screen, the output seq it includes, and the caller's role. */
export const AttachResult = z.strictObject({
  session_id: z.string(),
  /** Escape sequences that rebuild the screen and its bounded scrollback. */
  scrollback: z.string(),
  /** The oldest scrollback lines were left out to fit one frame. */
  truncated: z.boolean(),
  /** Seq of the last output chunk included; apply only `pty.output` chunks with a larger seq. */
  seq: z.number().int(),
  cols: z.number().int(),
  rows: z.number().int(),
  /** Output bytes the server-held screen skipped under floods; non-zero means the replay may lack state until redrawn. */
  skipped_bytes: z.number().int(),
  /** Whether this connection now controls the session (input, resize). */
  control: z.boolean(),
});
export type AttachResult = z.infer<typeof AttachResult>;

/** What `pty.list` returns. */
export const PtyList = z.strictObject({ sessions: z.array(PtyInfo) });
export type PtyList = z.infer<typeof PtyList>;
