// One hook call, end to end: validate, load the session policy, let the adapter parse the
// event, decide (write gate or verifier chain), log, and map the verdict to the agent's output.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { PreToolEvent } from '../core/event.js';
import type { Policy } from '../core/policy.js';
import { VerifierChain, type ChainResult } from '../core/verifier-chain.js';
import { allow, block, type Verdict } from '../core/verdict.js';
import { compileWriteScope, decideWrite } from '../core/write-gate.js';
import { resolveWriteTarget } from '../runtime/resolve-path.js';
import { appendSessionLog, SESSION_FILES } from '../runtime/session-store.js';
import { writeFileAtomic } from '../runtime/fs-atomic.js';
import { isSafeSessionId, sessionDir } from '../runtime/state-dir.js';
import { producersVerifier, scopeVerifier, type StopContext } from '../runtime/stop-verifiers.js';
import type { HookOutput } from './adapter.js';
import { claudeOutput } from './claude/output.js';
import { hookAdapter } from './hook-adapters.js';

/** One invocation of the hook command. */
export interface HookRequest {
  sessionId: string;
  eventName: string;
  stateDir: string;
  agent: string;
  /** Set in the rendered command when the policy's posture is fail-closed, so it holds even when the policy cannot be read. */
  failClosed: boolean;
  stdin: string;
  cwd: string;
}

const ALLOW_SILENTLY: HookOutput = { exitCode: 0, stdout: '', stderr: '' };

/** Decides one hook call. Never throws: an internal failure follows the posture. */
export async function runHookGate(req: HookRequest): Promise<HookOutput> {
  // An unsafe id could point anywhere: touch nothing at all.
  if (!isSafeSessionId(req.sessionId) || !isAbsolute(req.stateDir)) return ALLOW_SILENTLY;
  const dir = sessionDir(req.stateDir, req.sessionId);
  const logFile = join(dir, SESSION_FILES.log);
  const adapter = hookAdapter(req.agent);
  const output = adapter?.output ?? claudeOutput;
  const infraFailure = (what: string, failClosed: boolean): HookOutput => {
    appendSessionLog(logFile, { kind: 'infra_error', event: req.eventName, error: what, posture: failClosed ? 'fail-closed' : 'fail-open' });
    if (!failClosed) return ALLOW_SILENTLY;
    return output(req.eventName === 'Stop' ? 'stop' : 'pre_tool', block('posture.fail_closed', `Gatehouse could not check this action (${what}) and this session is fail-closed, so it is refused. Tell the operator; retrying will not help until the supervisor is fixed.`));
  };
  if (!adapter) return infraFailure(`no hook adapter for agent ${JSON.stringify(req.agent)}`, req.failClosed);

  let policy: Policy;
  try {
    policy = JSON.parse(readFileSync(join(dir, SESSION_FILES.policy), 'utf8')) as Policy;
  } catch (err) {
    return infraFailure(`cannot load the session policy: ${(err as Error).message}`, req.failClosed);
  }
  const failClosed = req.failClosed || policy.posture === 'fail-closed';
  try {
    let input: unknown;
    try {
      input = JSON.parse(req.stdin);
    } catch {
      return infraFailure('the hook input is not valid JSON', failClosed);
    }
    const parsed = adapter.parseEvent(req.eventName, input, req.cwd);
    if (!parsed.ok) return infraFailure(parsed.reason, failClosed);
    const event = parsed.value;
    const verdict = event.kind === 'pre_tool' ? decidePreTool(policy, event) : await decideStop(policy, dir, logFile);
    if (verdict.decision !== 'allow' || event.kind === 'stop') {
      appendSessionLog(logFile, { kind: 'decision', event: event.kind, tool: event.kind === 'pre_tool' ? event.tool : undefined, targets: event.kind === 'pre_tool' ? event.targets : undefined, decision: verdict.decision, rule: verdict.rule });
    }
    return adapter.output(event.kind, verdict);
  } catch (err) {
    return infraFailure(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, failClosed);
  }
}

/** The write gate for one tool call. */
export function decidePreTool(policy: Policy, event: PreToolEvent): Verdict {
  if (event.toolKind !== 'write') return allow('not_a_write');
  const scope = compileWriteScope(policy);
  return decideWrite(
    scope,
    event.tool,
    event.targets.map((target) => ({ target, real: resolveWriteTarget(target, event.cwd) })),
  );
}

interface StopState {
  consecutive_blocks: number;
}

/** The completion gate: the verifier chain, with Gatehouse's own count of consecutive blocks. */
async function decideStop(policy: Policy, dir: string, logFile: string): Promise<Verdict> {
  const stopFile = join(dir, SESSION_FILES.stop);
  let state: StopState = { consecutive_blocks: 0 };
  try {
    state = JSON.parse(readFileSync(stopFile, 'utf8')) as StopState;
  } catch {
    // First stop of the session.
  }
  const result = await runCompletionChain(policy, dir);
  const save = (n: number): void => writeFileAtomic(stopFile, `${JSON.stringify({ consecutive_blocks: n })}\n`, { mode: 0o600 });
  if (result.outcome === 'continue') {
    save(0);
    return allow('completion.verified');
  }
  if (result.outcome === 'halt') {
    save(0);
    return { decision: 'halt', rule: result.decidedBy ?? 'chain', reason: result.reason ?? 'halted' };
  }
  if (state.consecutive_blocks >= policy.max_stop_blocks) {
    save(0);
    const note = `Gatehouse: the task ended UNVERIFIED after ${state.consecutive_blocks} refused attempts to finish; the last check to fail was ${result.decidedBy}. Review the work before trusting it.`;
    appendSessionLog(logFile, { kind: 'unverified_stop', after_blocks: state.consecutive_blocks, rule: result.decidedBy });
    return allow('completion.unverified', note);
  }
  save(state.consecutive_blocks + 1);
  return block(result.decidedBy ?? 'chain', result.reason ?? 'blocked');
}

/** Runs the completion verifiers for a session (in-session Stop and end-of-session check alike). */
export function runCompletionChain(policy: Policy, dir: string, exclude: string[] = policy.scope_exclude): Promise<ChainResult> {
  const ctx: StopContext = { policy, baselineFile: join(dir, SESSION_FILES.baseline), exclude };
  const chain = new VerifierChain<StopContext>([producersVerifier, scopeVerifier]);
  return chain.run(ctx, new AbortController().signal);
}
