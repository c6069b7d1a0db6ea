// What the WebSocket layer needs from the PTY manager, and nothing more: the manager is
// passed in, so this is the whole surface the protocol can reach.
import type { Result } from '../../core/result.js';
import type { SandboxNetwork } from '../../core/sandbox.js';
import type { PtyManager } from '../pty/index.js';
import type { ExitInfo, SpawnSpec } from '../pty/types.js';

/** The part of `PtyManager` the endpoint uses: everything a client can reach goes through these. */
export type PtyHost = Pick<PtyManager, 'spawn' | 'list' | 'get' | 'write' | 'resize' | 'kill' | 'pause' | 'resume' | 'withSnapshot' | 'onOutput' | 'onExit'>;

/** What `hooks.onSpawnSession` hands back: the spawn to run and what to do at its end. */
export interface SessionLaunch {
  spawn: SpawnSpec;
  label: string;
  /**
   * Called once when the PTY ends (or when its spawn fails after the session started); settles
   * once the session's end is done (hooks removed, final check, sandbox closed).
   */
  onExit: (info: ExitInfo) => void | Promise<void>;
}

/** The `session` member of `pty.spawn`: spawn an agent under a Gatehouse session. */
export interface SessionRequest {
  agent: string;
  allow: string[];
  require: string[];
  /** Run the agent in a bubblewrap sandbox; absent: only when the config's `sandbox.enabled` asks. */
  sandbox?: SessionSandboxRequest | undefined;
}

/** The `session.sandbox` member: its network, or the config's (`host` by default) when left out. */
interface SessionSandboxRequest {
  network?: SandboxNetwork | undefined;
}

/** The params of `pty.spawn` as the hook receives them, validated. */
export interface SpawnParams {
  command?: string | undefined;
  args?: string[] | undefined;
  cwd?: string | undefined;
  rows?: number | undefined;
  cols?: number | undefined;
  session?: SessionRequest | undefined;
}

/** Callbacks the server's owner plugs in. */
export interface WebSocketHooks {
  /** Starts a Gatehouse session for `pty.spawn {session}` and says what to spawn. */
  onSpawnSession?(params: SpawnParams & { session: SessionRequest }): Promise<Result<SessionLaunch>>;
}
