// How a rendered hook reaches the gate: `command` runs the hook bundle in a fresh Node
// process; `warm` runs a bash client that asks the running supervisor and falls back to
// that same command on any trouble; `socket` (sandboxed sessions) runs a perl client that
// asks the supervising `gatehouse run` and refuses without it. Every adapter renders through this.
import { dirname, join } from 'node:path';
import { shellJoin } from '../core/shell-quote.js';
import { SANDBOX_SOCKET_DIR, SANDBOX_SOCKET_NAME } from '../core/sandbox.js';
import { isStopEvent } from './stop-events.js';
import { fail, ok, type Result } from '../core/result.js';
import type { TransportRecord } from '../runtime/session-store.js';
import { findOnPath } from '../runtime/find-on-path.js';
import { liveSupervisor, type SupervisorRecord } from '../runtime/supervisor-record.js';
import { defaultLayoutKey } from '../runtime/project-record.js';
import { stateBase } from '../runtime/state-base.js';

/** What `session start --transport` accepts. */
export const TRANSPORT_CHOICES = ['auto', 'command', 'warm'] as const;
export type TransportChoice = (typeof TRANSPORT_CHOICES)[number];

/** The warm client's file name, beside the hook bundle in dist/hook/. */
const WARM_CLIENT_FILE = 'warm.sh';

/** Everything a warm hook command names. */
export interface WarmTransport {
  /** Absolute path of bash (the client uses bash's /dev/tcp). */
  bash: string;
  /** Absolute path of warm.sh. */
  client: string;
  port: number;
  /** Absolute path of the session's secret file. */
  secretFile: string;
  /** The project key every call carries, for a supervisor of all projects; absent for the project's own. */
  project?: string;
}

/**
 * Everything a sandboxed hook command names: the perl client, which reaches the supervising
 * `gatehouse run` through the Unix socket bound into the sandbox and fails closed without it.
 */
export interface SocketTransport {
  kind: 'socket';
  /** Absolute path of perl and of socket-hook.pl (both visible read-only inside the sandbox). */
  perl: string;
  client: string;
}

/** The socket client's file name, beside the hook bundle in dist/hook/. */
export const SOCKET_CLIENT_FILE = 'socket-hook.pl';
/** Seconds the agent waits past the client's own deadline, so the client's refusal arrives first (an agent's timeout lets the call through). */
const SOCKET_MARGIN_S = 5;

/** The refusal file beside the socket for an event kind: what the client prints when the supervisor cannot answer. */
export function refusalFileName(kind: 'pre_tool' | 'stop'): string {
  return `refuse-${kind}`;
}

/** Where the supervisor of a session's project must run: the project folder and, when it was given, the state folder. */
export interface SupervisorPlace {
  /** The project's worktree (real path): the folder to run `gatehouse serve` in. */
  worktree: string;
  /** The `--state-dir` the session was started with, if any: serve needs the same one. */
  stateDir?: string;
}

/**
 * The command that starts the supervisor a session of this project uses, runnable from any folder.
 * @example serveHint({ worktree: '/src/app' }) // "gatehouse serve --project /src/app"
 */
function serveHint(place: SupervisorPlace): string {
  const argv = ['gatehouse', 'serve', '--project', place.worktree];
  if (place.stateDir !== undefined) argv.push('--state-dir', place.stateDir);
  return shellJoin(argv);
}

/**
 * The supervisor this project's warm hooks call: its own (`serve` for it), else a `serve --all`
 * recorded in the state base when the project's folder is in that base's default layout, with the
 * key its calls must carry there. Null when neither is alive and answering.
 */
async function supervisorFor(projectState: string, env: NodeJS.ProcessEnv): Promise<{ rec: SupervisorRecord; project: string | null } | null> {
  const own = await liveSupervisor(projectState);
  if (own !== null) return { rec: own, project: null };
  const key = defaultLayoutKey(projectState, env);
  if (key === null) return null;
  const all = await liveSupervisor(stateBase(env));
  return all?.all === true ? { rec: all, project: key } : null;
}

/**
 * Picks the transport for a new session: `command` always works; `warm` needs a live
 * supervisor for this project state (its own, or `serve --all` for the state base) and bash;
 * `auto` is warm when both are there.
 */
export async function chooseTransport(
  choice: TransportChoice,
  projectState: string,
  hookBundle: string,
  env: NodeJS.ProcessEnv,
  place: SupervisorPlace,
): Promise<Result<{ record: TransportRecord; bash: string | null; client: string | null }>> {
  const command = ok({ record: { kind: 'command' } as TransportRecord, bash: null, client: null });
  if (choice === 'command') return command;
  const bash = findOnPath('bash', env);
  const found = await supervisorFor(projectState, env);
  if (bash === null || found === null) {
    if (choice === 'auto') return command;
    return fail(
      found === null
        ? `--transport warm needs a running supervisor for this project: start it with \`${serveHint(place)}\`${place.stateDir === undefined ? ` (or \`gatehouse serve\` run in ${place.worktree})` : ''} first, or use --transport auto|command`
        : '--transport warm needs bash on PATH: install bash or use --transport command',
    );
  }
  const { rec, project } = found;
  const record: TransportRecord = { kind: 'warm', port: rec.port, supervisor_pid: rec.pid, ...(project === null ? {} : { project }) };
  return ok({ record, bash, client: join(dirname(hookBundle), WARM_CLIENT_FILE) });
}

/** One hook call's identity, as the cold command's flags carry it. */
export interface HookCall {
  sessionId: string;
  event: string;
  agent: string;
  failClosed: boolean;
  policyDigest: string;
}

/**
 * The command and timeout to render for one hook. Warm: the bash client with a deadline
 * equal to the cold budget, and the timeout doubled, so a fallback after a supervisor that
 * went quiet still has the cold command's whole budget before the agent gives up (a hook
 * the agent times out does not block).
 */
export function hookInvocation(coldArgv: readonly string[], call: HookCall, coldTimeoutS: number, warm: WarmTransport | SocketTransport | null): { command: string; timeout: number } {
  if (warm === null) return { command: shellJoin(coldArgv), timeout: coldTimeoutS };
  if ('kind' in warm) {
    const refusal = `${SANDBOX_SOCKET_DIR}/${refusalFileName(isStopEvent(call.agent, call.event) ? 'stop' : 'pre_tool')}`;
    const argv = [
      warm.perl,
      warm.client,
      `${SANDBOX_SOCKET_DIR}/${SANDBOX_SOCKET_NAME}`,
      call.sessionId,
      call.event,
      call.agent,
      call.failClosed ? '1' : '0',
      String(coldTimeoutS),
      call.policyDigest,
      refusal,
    ];
    return { command: shellJoin(argv), timeout: coldTimeoutS + SOCKET_MARGIN_S };
  }
  const argv = [
    warm.bash,
    warm.client,
    String(warm.port),
    warm.secretFile,
    call.sessionId,
    call.event,
    call.agent,
    call.failClosed ? '1' : '0',
    String(coldTimeoutS),
    call.policyDigest,
    // Optional, before `--`: a client of an older render (no key) still parses.
    ...(warm.project === undefined ? [] : [warm.project]),
    '--',
    ...coldArgv,
  ];
  return { command: shellJoin(argv), timeout: 2 * coldTimeoutS };
}
