// A sandboxed session's parts, made at `session start` for a launcher that spawns the agent
// itself (`gatehouse run`, the dashboard): the trial sandbox, the hook endpoint the sandbox
// reaches, the plan of what it may see and write, and the transport the hooks render with.
import { dirname, join } from 'node:path';
import type { SandboxNetwork, SandboxSpec } from '../core/sandbox.js';
import { fail, ok, type Result } from '../core/result.js';
import { planSandbox } from '../runtime/sandbox/plan.js';
import { probeSandbox, type SandboxTools } from '../runtime/sandbox/probe.js';
import type { SandboxConfig } from '../runtime/config.js';
import type { AgentAdapter, HookOutput } from '../adapters/adapter.js';
import type { Verdict } from '../core/verdict.js';
import { SOCKET_CLIENT_FILE, type SocketTransport } from '../adapters/hook-transport.js';
import { sessionDir } from '../runtime/state-dir.js';
import { SESSION_FILES } from '../runtime/session-layout.js';

/** The line that tells a person a git control file the agent made was moved aside. */
export function quarantineNote([from, to]: [string, string]): string {
  return `moved ${from}, which the agent made in the sandbox, to ${to}: git would have read its settings and hooks from where it points`;
}

/** What `gatehouse run` and the dashboard offer `startSession`: they can start the agent inside a sandbox. */
export interface SandboxOffer {
  /** Asked for by the launcher (`--sandbox`, the form's choice); the config's `sandbox.enabled` asks too. */
  requested: boolean;
  /** `--network`, overriding the config's `sandbox.network`. */
  network?: SandboxNetwork;
  /** Starts the session's hook endpoint: a Unix socket in a folder of its own, with the refusals a hook prints when it is gone. */
  startSocket(opts: { projectState: string; sessionId: string; output: (kind: 'pre_tool' | 'stop', v: Verdict) => HookOutput }): Promise<{ dir: string; close(): Promise<void> }>;
}

/** A started session's sandbox. */
export interface SessionSandbox {
  spec: SandboxSpec;
  transport: SocketTransport;
  /** Environment variables the agent must not inherit (the secrets of the config's scoped tokens). */
  dropEnv: string[];
  /**
   * Stops the hook endpoint, takes away the stand-in settings files and moves a git control file
   * the agent made into the session's quarantine folder; call once the agent and the
   * end-of-session check are done. Returns the files moved, `[from, to]`.
   */
  close(): Promise<[from: string, to: string][]>;
}

/** Everything the sandbox is made from. */
export interface SessionSandboxInput {
  tools: SandboxTools;
  offer: SandboxOffer;
  network: SandboxNetwork;
  sessionId: string;
  projectState: string;
  worktree: string;
  allow: readonly string[];
  protect: readonly string[];
  hookBundle: string;
  adapter: AgentAdapter | null;
  /** The agent's output form, for the refusals a hook prints when the supervisor is gone. */
  output: (kind: 'pre_tool' | 'stop', v: Verdict) => HookOutput;
  tokenEnv: string[];
  /** The config's `sandbox.hide`. */
  hide: readonly string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Whether a session is to be sandboxed, and the tools to do it with: null when it is not. A
 * sandbox asked for (by the launcher or the config) without a launcher that can start the agent,
 * or on a machine that cannot make one, is a refusal, never a session without it.
 */
export function sandboxTools(inp: {
  offer: SandboxOffer | undefined;
  config: SandboxConfig;
  configFile: string | null;
  agent: string;
  transport: string | undefined;
  env: NodeJS.ProcessEnv;
}): Result<SandboxTools | null> {
  const wanted = inp.offer?.requested === true || inp.config.enabled;
  if (!wanted) return inp.offer?.network !== undefined ? fail('--network applies to a sandboxed session: add --sandbox (or set sandbox.enabled in the config)') : ok(null);
  if (inp.offer === undefined) {
    return fail(
      `${inp.configFile ?? 'the config'} asks for a sandbox (sandbox.enabled), and only a command that starts the agent itself can put it in one: use \`gatehouse run --agent ${inp.agent} -- CMD\` (or the dashboard's new-session form)`,
    );
  }
  if (inp.transport !== undefined && inp.transport !== 'auto')
    return fail(`--transport ${inp.transport} does not apply to a sandboxed session: its hooks reach \`gatehouse run\` through a socket; leave --transport out`);
  return probeSandbox(inp.env);
}

/** Starts the hook endpoint and plans the sandbox; on failure nothing is left running. */
export async function prepareSessionSandbox(inp: SessionSandboxInput): Promise<Result<SessionSandbox>> {
  const socket = await inp.offer.startSocket({ projectState: inp.projectState, sessionId: inp.sessionId, output: inp.output });
  const plan = planSandbox({
    tools: inp.tools,
    network: inp.network,
    socketDir: socket.dir,
    worktree: inp.worktree,
    allow: inp.allow,
    protect: inp.protect,
    projectState: inp.projectState,
    hookBundle: inp.hookBundle,
    agentData: inp.adapter?.dataPaths(inp.env) ?? { dirs: [], files: [] },
    agentSettings: inp.adapter?.settingsFiles(inp.worktree, inp.env) ?? [],
    agentConfigDirs: (inp.adapter?.renderTargets(inp.worktree) ?? []).map((f) => dirname(f)),
    hide: inp.hide,
    env: inp.env,
    quarantineDir: join(sessionDir(inp.projectState, inp.sessionId), SESSION_FILES.quarantine),
  });
  if (!plan.ok) {
    await socket.close();
    return fail(plan.reason);
  }
  return ok({
    spec: plan.value.spec,
    transport: { kind: 'socket', perl: inp.tools.perl, client: join(dirname(inp.hookBundle), SOCKET_CLIENT_FILE) },
    dropEnv: inp.tokenEnv,
    close: async () => {
      await socket.close();
      return plan.value.cleanup();
    },
  });
}
