// One hook call, end to end: validate, load the session policy, let the adapter parse the
// event, decide (PreToolUse gates or the Stop chain), log, and map the verdict to the agent's output.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Policy } from '../core/policy.js';
import { allow, block, type Verdict } from '../core/verdict.js';
import { appendSessionLog, SESSION_FILES } from '../runtime/session-layout.js';
import { isSafeSessionId, sessionDir } from '../runtime/state-dir.js';
import { updateTurnState, type TurnState } from '../runtime/turn-state.js';
import { readVerifiedJson } from '../runtime/session-files.js';
import type { ChainResult } from '../core/verifier-chain.js';
import type { HookOutput } from './adapter.js';
import { claudeOutput } from './claude/output.js';
import { hookAdapter } from './hook-adapters.js';
import { decideToolUse, recordPostTool } from './pre-tool.js';
import type { StopInput } from './stop-chain.js';
import { isStopEvent } from './stop-events.js';

/** One invocation of the hook command. */
export interface HookRequest {
  sessionId: string;
  eventName: string;
  stateDir: string;
  agent: string;
  /** Set in the rendered command when the policy's posture is fail-closed, so it holds even when the policy cannot be read. */
  failClosed: boolean;
  /**
   * SHA-256 of policy.json as `session start` wrote it, baked into the rendered command: a
   * policy that differs or cannot be read is tampering. Null only for hooks rendered by an
   * older Gatehouse, which are read as before.
   */
  policyDigest: string | null;
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
    return output(isStopEvent(req.agent, req.eventName) ? 'stop' : 'pre_tool', block('posture.fail_closed', `Gatehouse could not check this action (${what}) and this session is fail-closed, so it is refused. Tell the operator; retrying will not help until the supervisor is fixed.`));
  };
  if (!adapter) return infraFailure(`no hook adapter for agent ${JSON.stringify(req.agent)}`, req.failClosed);

  let policy: Policy;
  if (req.policyDigest !== null) {
    const read = readVerifiedJson<Policy>(join(dir, SESSION_FILES.policy), req.policyDigest, 'the session policy (policy.json)');
    if (!read.ok) return await tampered(req, read.reason, output);
    policy = read.value;
  } else {
    try {
      policy = JSON.parse(readFileSync(join(dir, SESSION_FILES.policy), 'utf8')) as Policy;
    } catch (err) {
      return infraFailure(`cannot load the session policy: ${(err as Error).message}`, req.failClosed);
    }
  }
  // A sandboxed session fails closed in every posture (docs/sandbox.md): nothing outside the sandbox can fall back.
  const failClosed = req.failClosed || policy.posture === 'fail-closed' || policy.sandboxed === true;
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
    let verdict: Verdict;
    if (event.kind === 'pre_tool') {
      verdict = await decideToolUse(policy, event, dir);
      // The recorder (audit log, evidence, keys) is loaded only when there is something to seal.
      if (verdict.decision !== 'allow' || policy.record_allows) {
        const { recordGateDecision, digestOf } = await import('../runtime/recorder.js');
        recordGateDecision(policy, event, verdict, digestOf(req.stdin));
      }
    } else if (event.kind === 'post_tool') {
      verdict = recordPostTool(policy, event, dir);
    } else {
      const stop = await decideStop(policy, dir, { lastMessage: event.lastMessage, transcriptPath: event.transcriptPath }, logFile);
      if ('tampered' in stop) return await tampered(req, stop.tampered, output);
      verdict = stop.verdict;
      const { recordCompletion, digestOf } = await import('../runtime/recorder.js');
      recordCompletion(policy, 'in_session', stop.result, { unverified: verdict.rule === 'completion.unverified', lastMessage: event.lastMessage, inputDigest: digestOf(req.stdin) });
    }
    if (verdict.decision !== 'allow' || event.kind === 'stop') {
      appendSessionLog(logFile, { kind: 'decision', event: event.kind, tool: event.kind === 'pre_tool' ? event.tool : undefined, targets: event.kind === 'pre_tool' ? event.targets : undefined, decision: verdict.decision, rule: verdict.rule });
    }
    return adapter.output(event.kind, verdict);
  } catch (err) {
    return infraFailure(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, failClosed);
  }
}

/**
 * Gatehouse's own files were changed or removed while the session ran: refused in every
 * posture (this is not an infrastructure failure), logged, and recorded in the audit log.
 */
async function tampered(req: HookRequest, what: string, output: (kind: 'pre_tool' | 'stop', v: Verdict) => HookOutput): Promise<HookOutput> {
  const dir = sessionDir(req.stateDir, req.sessionId);
  appendSessionLog(join(dir, SESSION_FILES.log), { kind: 'tamper', event: req.eventName, what });
  const { recordTamper } = await import('../runtime/recorder.js');
  recordTamper(req.stateDir, req.sessionId, { event: req.eventName, what });
  const reason = `Gatehouse refused this: ${what}, so this session can no longer be checked and every action is refused. Nothing the agent does can fix this; stop and tell the operator, who must end this session (\`gatehouse session end ${req.sessionId}\`, or, if its state folder is gone, remove the hooks that name \`--session ${req.sessionId}\` from the agent's settings) and start a new one.`;
  return output(isStopEvent(req.agent, req.eventName) ? 'stop' : 'pre_tool', block('tamper', reason));
}

/** The completion gate: the verifier chain, with Gatehouse's own count of consecutive refused stops. */
async function decideStop(policy: Policy, dir: string, input: StopInput, logFile: string): Promise<{ verdict: Verdict; result: ChainResult } | { tampered: string }> {
  // The chain spawns processes and reads git: loaded only at Stop, never on a PreToolUse call.
  const { runInSessionChain } = await import('./stop-chain.js');
  const run = await runInSessionChain(policy, dir, input);
  if ('tampered' in run) return run;
  const { result } = run;
  const verdict = updateTurnState(dir, (s): { state: TurnState; result: Verdict } => {
    // Keep what the stages wrote (extension veto counts, the nudge flag) and count the stop.
    const base = { ...s, kv: { ...s.kv, ...run.state.kv }, stops: s.stops + 1 };
    if (result.outcome === 'continue') return { state: { ...base, consecutive_blocks: 0 }, result: allow('completion.verified') };
    if (result.outcome === 'halt') {
      return { state: { ...base, consecutive_blocks: 0 }, result: { decision: 'halt', rule: result.decidedBy ?? 'chain', reason: result.reason ?? 'halted' } };
    }
    if (s.consecutive_blocks >= policy.max_stop_blocks) {
      const note = `Gatehouse: the task ended UNVERIFIED after ${s.consecutive_blocks} refused attempts to finish; the last ${result.failed.length === 1 ? 'check' : 'checks'} to fail: ${result.failed.join(', ')}. Review the work before trusting it.`;
      appendSessionLog(logFile, { kind: 'unverified_stop', after_blocks: s.consecutive_blocks, rule: result.decidedBy });
      return { state: { ...base, consecutive_blocks: 0 }, result: allow('completion.unverified', note) };
    }
    return { state: { ...base, consecutive_blocks: s.consecutive_blocks + 1 }, result: block(result.decidedBy ?? 'chain', result.reason ?? 'blocked') };
  });
  return { verdict, result };
}
