// `gatehouseHooks({ session })`: the `hooks` option for the Claude Agent SDK's `query()`.
// Its PreToolUse, PostToolUse and Stop callbacks run the very hook gate the command hooks
// run (`runHookGate`: same policy, turn state, audit events) inside the program's process,
// so a program built on the SDK is gated with no process start per call.
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256Hex } from '../core/crypto/sha256.js';
import { checkPolicy } from '../core/policy.js';
import { SESSION_FILES } from '../runtime/session-layout.js';
import { readRegularFile } from '../runtime/small-file.js';
import { isSafeSessionId, sessionDir } from '../runtime/state-dir.js';
import { hookBudgets } from './hook-budget.js';
import { runHookGate } from './hook-gate.js';
import { resolveProjectState } from '../runtime/state-base.js';
import { startDigests } from '../runtime/session-trust.js';
import type { SdkHookOutput } from '../adapters/claude-sdk/output.js';

/** Which session to gate: started with `gatehouse session start --agent claude-sdk`. */
export interface GatehouseHooksOptions {
  /** The session id `session start` printed. */
  session: string;
  /** The project folder (default: the current folder); used to find the state folder. */
  worktree?: string;
  /** The project state folder, when `session start` was given `--state-dir`. */
  stateDir?: string;
}

/** The input an SDK hook callback receives, as far as Gatehouse reads it. */
interface SdkHookInput {
  hook_event_name: string;
  cwd?: string;
}

/** An SDK hook callback (structurally the SDK's `HookCallback`). */
type SdkHookCallback = (input: SdkHookInput, toolUseId: string | undefined, options: { signal: AbortSignal }) => Promise<SdkHookOutput>;

/** One matcher entry of the SDK's `hooks` option. */
interface SdkHookMatcher {
  hooks: SdkHookCallback[];
  /** Seconds; the SDK's default is shorter than a required check or an approval can take. */
  timeout: number;
}

/** The `hooks` option for `query()`. */
export interface GatehouseSdkHooks {
  PreToolUse: SdkHookMatcher[];
  PostToolUse: SdkHookMatcher[];
  Stop: SdkHookMatcher[];
}

/**
 * Builds the hooks for a started session; throws with what to do when the session cannot be
 * found, so a misconfigured program fails before the agent runs ungated.
 * @example for await (const m of query({ prompt, options: { hooks: gatehouseHooks({ session: id }) } })) …
 */
export function gatehouseHooks(opts: GatehouseHooksOptions): GatehouseSdkHooks {
  if (!isSafeSessionId(opts.session)) throw new Error(`gatehouseHooks: ${JSON.stringify(opts.session)} is not a session id; pass the id \`gatehouse session start --agent claude-sdk\` printed`);
  const worktree = realpathSync(resolve(opts.worktree ?? '.'));
  const stateDir = opts.stateDir !== undefined ? resolve(opts.stateDir) : resolveProjectState(worktree, process.env);
  let raw: unknown;
  let policyDigest: string;
  try {
    // Read now, before the agent runs: every later hook call trusts the file only while it matches.
    const bytes = readRegularFile(join(sessionDir(stateDir, opts.session), SESSION_FILES.policy));
    policyDigest = sha256Hex(bytes);
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Error(`gatehouseHooks: no session ${opts.session} in ${stateDir}: start one with \`gatehouse session start --agent claude-sdk\` (and pass stateDir if you gave --state-dir)`);
  }
  // Trusted by the digest `session start` recorded in the audit log, not by the file's bytes now:
  // an agent of an earlier query() may have rewritten it (`allow: ['**']`) before this call.
  const recorded = startDigests(stateDir, opts.session)?.policy ?? null;
  if (recorded === null)
    throw new Error(
      `gatehouseHooks: the audit log in ${stateDir} holds no start of session ${opts.session}, so its policy cannot be trusted: start a new one with \`gatehouse session start --agent claude-sdk\``,
    );
  if (recorded !== policyDigest)
    throw new Error(
      `gatehouseHooks: the policy of session ${opts.session} changed since it started (it no longer matches the digest its start recorded): end it (\`gatehouse session end ${opts.session}\`) and start a new one`,
    );
  const checked = checkPolicy(raw);
  if (!checked.ok)
    throw new Error(
      `gatehouseHooks: the policy of session ${opts.session} in ${stateDir} cannot be read (${checked.reason}): end it (\`gatehouse session end ${opts.session}\`) and start a new one with \`gatehouse session start --agent claude-sdk\``,
    );
  const policy = checked.value;
  if (policy.agent !== 'claude-sdk') throw new Error(`gatehouseHooks: session ${opts.session} was started for --agent ${policy.agent}; start one with --agent claude-sdk`);
  const failClosed = policy.posture === 'fail-closed';
  const callback: SdkHookCallback = async (input, _toolUseId, options) => {
    const out = await runHookGate({
      sessionId: opts.session,
      eventName: input.hook_event_name,
      stateDir,
      agent: 'claude-sdk',
      failClosed,
      policyDigest,
      stdin: JSON.stringify(input),
      cwd: typeof input.cwd === 'string' ? input.cwd : worktree,
      // The SDK aborts a callback it no longer waits for: a waiting approval is withdrawn, running checks stopped.
      ...(options?.signal !== undefined ? { signal: options.signal } : {}),
    });
    return out.stdout === '' ? {} : (JSON.parse(out.stdout) as SdkHookOutput);
  };
  const budgets = hookBudgets(policy);
  return {
    PreToolUse: [{ hooks: [callback], timeout: budgets.preToolS }],
    PostToolUse: [{ hooks: [callback], timeout: budgets.preToolS }],
    Stop: [{ hooks: [callback], timeout: budgets.stopS }],
  };
}
