// The one contract every agent adapter implements: render hooks into the agent's
// settings (and remove exactly them), parse its hook JSON, and map a verdict to its output.
import { anything, checkShape, list, object, text, type Infer, type Shape } from '../core/shape.js';
import type { GateEvent } from '../core/event.js';
import { fail, ok, type Result } from '../core/result.js';
import type { Verdict } from '../core/verdict.js';
import type { SocketTransport, WarmTransport } from './hook-transport.js';

/** Gates an adapter can offer. */
type GateName = 'write_gate' | 'shell_analysis' | 'completion_gate' | 'approvals' | 'halt';

/** `blocking`: a genuine blocking hook surface; `none`: nothing rendered, the end-of-session check covers it. */
interface Capability {
  level: 'blocking' | 'none';
  reason: string;
}

/** One agent's capability per gate. */
export type Capabilities = Record<GateName, Capability>;

/** What an adapter needs to render a session's hooks. */
export interface RenderContext {
  sessionId: string;
  worktree: string;
  projectState: string;
  /** Absolute path of the node binary and of the hook bundle: the hook runs them directly. */
  nodePath: string;
  hookBundle: string;
  /** Seconds the Stop hook may take (producers' timeouts plus margin). */
  stopTimeoutS: number;
  /** The policy's posture is fail-closed: baked into the command so it holds even if the policy cannot be read. */
  failClosed: boolean;
  /** PreToolUse covers every tool (tool-loop watchdog, caps), not only the write tools. */
  watchAllTools: boolean;
  /** Render PostToolUse so failed tool results feed the consecutive-failure watchdog. */
  trackFailures: boolean;
  /** Seconds the PreToolUse hook may take (longer than the approval TTL when approvals are on). */
  preToolTimeoutS: number;
  /** Render warm hooks (the bash client, falling back to the cold command), socket hooks (sandboxed, no fallback); null renders the cold command. */
  warm: WarmTransport | SocketTransport | null;
  /** Refused stops in a row before the turn may end unverified (agents that cap continuations need it). */
  maxStopBlocks: number;
  /** SHA-256 of the session's policy.json: the hook refuses everything if the file stops matching it. */
  policyDigest: string;
  /**
   * The environment the agent will run with: where its trust steps find its homes (`CODEX_HOME`,
   * `GEMINI_CLI_HOME`, `COPILOT_HOME`, `GATEHOUSE_CODEX_BIN`). Default: this process's.
   */
  env?: NodeJS.ProcessEnv;
}

/** A rendered file, recorded so that removal can undo exactly it. */
export const RenderedFile = object({
  file: text(),
  /** Adapter-specific record needed to remove the render (kept as JSON in the session folder); each adapter checks its own. */
  record: anything,
});
export type RenderedFile = Infer<typeof RenderedFile>;
/** render.json: every file a session's start rendered. */
export const RenderedFiles = list(RenderedFile);

/**
 * The adapter's own record of `f`, checked against the shape that adapter writes: nothing is
 * removed or rewritten on the word of a record of another shape.
 * @example const r = recordOf(OwnedFileShape, f, 'OpenCode'); if (!r.ok) return r;
 */
export function recordOf<T>(shape: Shape<T>, f: RenderedFile, agent: string): Result<T> {
  const r = checkShape(shape, f.record);
  return r.ok ? r : fail(`render.json's record of ${f.file} is not one ${agent}'s render writes (${r.reason}); nothing was changed: check the file by hand`);
}

/** `r` without its value. */
export function voidOf<T>(r: Result<T>): Result<void> {
  return r.ok ? ok(undefined) : r;
}

/** Every record of `files` checked with {@link recordOf}, or the first that fails: act on all or on none. */
export function recordsOf<T>(shape: Shape<T>, files: readonly RenderedFile[], agent: string): Result<T[]> {
  const out: T[] = [];
  for (const f of files) {
    const r = recordOf(shape, f, agent);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return ok(out);
}

/** How a verdict reaches the agent. */
export interface HookOutput {
  exitCode: 0 | 2;
  stdout: string;
  stderr: string;
}

/** The contract each `src/adapters/<agent>/` folder implements. */
export interface AgentAdapter {
  readonly name: string;
  readonly capabilities: Capabilities;
  /** Every settings file that could switch the hooks off (absolute), under the homes `env` names: the write gate protects them. */
  settingsFiles(worktree: string, env: NodeJS.ProcessEnv): string[];
  /** The agent's own data folders and files (absolute) under the homes `env` names: writable inside a sandbox, where the rest of HOME is read-only. */
  dataPaths(env: NodeJS.ProcessEnv): { dirs: string[]; files: string[] };
  /** The files `render` writes (absolute): the in-session scope check ignores them. */
  renderTargets(worktree: string): string[];
  /**
   * Files and folders in the worktree (absolute) that the agent program writes for itself, not
   * the model (OpenCode's plugin runtime install): every scope check leaves them out. List them
   * in {@link settingsFiles} too, so the write gate and the sandbox keep the model from them.
   */
  runtimeFiles?(worktree: string): string[];
  /**
   * Environment variables and command-line flags with which the agent skips the rendered hooks
   * without a word (OpenCode's `--pure`): `gatehouse run` and the dashboard refuse to start it so.
   */
  readonly offSwitches?: { env: readonly string[]; flags: readonly string[] };
  /** Renders the hooks (and anything they need to fire, e.g. an agent's trust entries); may be async. */
  render(ctx: RenderContext): Result<RenderedFile[]> | Promise<Result<RenderedFile[]>>;
  /** Undoes `files` (as render returned them); every record is checked first, so a bad one changes nothing. */
  unrender(files: RenderedFile[]): Result<{ removed: number }>;
  /** Whether every record in `files` has the shape this adapter's render writes (what unrender checks before acting). */
  checkRecords(files: RenderedFile[]): Result<void>;
  /** Parses the agent's hook stdin for the given event name. */
  parseEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent>;
  output(event: GateEvent['kind'], verdict: Verdict): HookOutput;
}

/** An adapter whose render is synchronous: the part an agent's adapter may wrap in more steps (see trust-step.ts). */
export type SyncRenderAdapter = Omit<AgentAdapter, 'render'> & { render(ctx: RenderContext): Result<RenderedFile[]> };

/** Capability table for an agent Gatehouse has no hook surface for. */
export function noCapabilities(reason: string): Capabilities {
  const none: Capability = { level: 'none', reason };
  return { write_gate: none, shell_analysis: none, completion_gate: none, approvals: none, halt: none };
}
