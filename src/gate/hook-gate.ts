// One hook call, end to end: validate, load the session policy, let the adapter parse the
// event, decide (PreToolUse gates or the Stop chain), log, and map the verdict to the agent's output.
import { MAX_STATE_FILE_BYTES, readSmallBytes } from '../runtime/small-file.js';
import { isAbsolute, join } from 'node:path';
import { checkPolicy, type Policy } from '../core/policy.js';
import { block, type Verdict } from '../core/verdict.js';
import { appendSessionLog, SESSION_FILES } from '../runtime/session-layout.js';
import { isSafeSessionId, sessionDir } from '../runtime/state-dir.js';
import { updateTurnState, type TurnState } from '../runtime/turn-state.js';
import { readVerifiedJson } from '../runtime/session-files.js';
import type { ChainResult } from '../core/verifier-chain.js';
import { checkHookInput, MAX_INPUT_BYTES } from '../core/hook-input.js';
import { stopVerdict } from '../core/gate-rules.js';
import type { HookOutput } from '../adapters/adapter.js';
import type { GateEvent } from '../core/event.js';
import { claudeOutput } from '../adapters/claude/output.js';
import { hookAdapter } from '../adapters/hook-adapters.js';
import { decideToolUse, recordPostTool } from './pre-tool.js';
import type { StopInput } from './stop-chain.js';
import { isStopEvent } from '../adapters/stop-events.js';
import { sha256Hex, useNativeHash } from '../core/crypto/sha256.js';

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
  /** Set when the input was larger than {@link MAX_INPUT_BYTES} and not read: refused. */
  stdinTooLarge?: boolean;
  cwd: string;
  /**
   * Aborted when whoever asked is gone (the warm client's connection closed, the SDK cancelled
   * the callback): a waiting approval is withdrawn and running checks are stopped.
   */
  signal?: AbortSignal;
}

const ALLOW_SILENTLY: HookOutput = { exitCode: 0, stdout: '', stderr: '' };

/**
 * Decides one hook call. Input the agent controls that is not a well-formed event is refused; a
 * failure while judging a call refuses it; a failure of Gatehouse's own files follows the posture.
 */
export async function runHookGate(req: HookRequest): Promise<HookOutput> {
  // An unsafe id could point anywhere: touch nothing at all.
  if (!isSafeSessionId(req.sessionId) || !isAbsolute(req.stateDir)) return ALLOW_SILENTLY;
  const dir = sessionDir(req.stateDir, req.sessionId);
  const logFile = join(dir, SESSION_FILES.log);
  const adapter = hookAdapter(req.agent);
  const output = adapter?.output ?? claudeOutput;
  const kind = isStopEvent(req.agent, req.eventName) ? 'stop' : 'pre_tool';
  // A Stop seals its verdict with node:crypto, so its digests (the policy's first) take that too.
  if (kind === 'stop') useNativeHash();
  const infraFailure = (what: string, failClosed: boolean): HookOutput => {
    appendSessionLog(logFile, { kind: 'infra_error', event: req.eventName, error: what, posture: failClosed ? 'fail-closed' : 'fail-open' });
    if (!failClosed) return ALLOW_SILENTLY;
    return output(
      kind,
      block(
        'posture.fail_closed',
        `Gatehouse could not check this action (${what}) and this session is fail-closed, so it is refused. Tell the operator; retrying will not help until the supervisor is fixed.`,
      ),
    );
  };
  if (!adapter) return infraFailure(`no hook adapter for agent ${JSON.stringify(req.agent)}`, req.failClosed);

  // A policy that is not one (wrong keys or types) is refused in every posture, like a changed one:
  // judging with it could go either way, and the agent may be the one who wrote it.
  const what = 'the session policy (policy.json)';
  let policy: Policy;
  if (req.policyDigest !== null) {
    const read = readVerifiedJson(join(dir, SESSION_FILES.policy), req.policyDigest, what, checkPolicy);
    if (!read.ok) return await tampered(req, read.reason, (v) => output(kind, v));
    policy = read.value;
  } else {
    let raw: unknown;
    try {
      // Only a regular file: a FIFO planted in its place would hold the hook until the agent's timeout.
      const bytes = readSmallBytes(join(dir, SESSION_FILES.policy), MAX_STATE_FILE_BYTES);
      if (bytes === null) throw new Error('it is missing, a link, a FIFO or another special file, or too large');
      raw = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      return infraFailure(`cannot load the session policy: ${(err as Error).message}`, req.failClosed);
    }
    const checked = checkPolicy(raw);
    if (!checked.ok) return await tampered(req, `${what} is not a session policy this Gatehouse can read (${checked.reason})`, (v) => output(kind, v));
    policy = checked.value;
  }
  // The input is the agent's: what cannot be read as a well-formed event is refused, never an infrastructure failure.
  const refuseInput = (what: string): HookOutput => {
    appendSessionLog(logFile, { kind: 'malformed_input', event: req.eventName, error: what });
    return output(kind, block('input.malformed', `Gatehouse refused this: the hook input ${what}. Nothing was checked, so nothing runs; send the call again as plain, well-formed text.`));
  };
  // Anything that breaks while the call is judged refuses it, never toward allow: a helper on
  // input it did not expect, and Gatehouse's own files too (the approval queue, the audit log),
  // which outside a sandbox the agent can break on purpose. Only what fails before a call can
  // be judged at all (the adapter, the policy's file) follows the posture.
  const broke = (err: unknown, at: 'pre_tool' | 'stop'): HookOutput => {
    appendSessionLog(logFile, { kind: 'gate_error', event: req.eventName, error: describe(err) });
    return output(
      at,
      block(
        'gate.error',
        `Gatehouse could not judge this call (${err instanceof Error ? err.message : String(err)}), so it is refused. Try another way; if every call fails, stop and tell the operator.`,
      ),
    );
  };
  if (req.stdinTooLarge === true) return refuseInput(`is larger than ${MAX_INPUT_BYTES} bytes, more than Gatehouse reads`);
  let input: unknown;
  try {
    input = JSON.parse(req.stdin);
  } catch {
    return refuseInput('is not valid JSON');
  }
  const wellFormed = checkHookInput(input);
  if (!wellFormed.ok) return refuseInput(wellFormed.reason);
  let event: GateEvent;
  let verdict: Verdict;
  let stopResult: ChainResult | null = null;
  try {
    const parsed = adapter.parseEvent(req.eventName, wellFormed.value, req.cwd);
    if (!parsed.ok) return refuseInput(`cannot be read as a ${req.eventName} event (${parsed.reason})`);
    event = parsed.value;
    if (event.kind === 'pre_tool') verdict = await decideToolUse(policy, event, dir, req.signal);
    else if (event.kind === 'post_tool') verdict = recordPostTool(policy, event, dir);
    else {
      const stop = await decideStop(policy, dir, { lastMessage: event.lastMessage, transcriptPath: event.transcriptPath }, logFile, req.signal);
      if ('tampered' in stop) return await tampered(req, stop.tampered, (v) => output(kind, v));
      verdict = stop.verdict;
      stopResult = stop.result;
    }
  } catch (err) {
    return broke(err, kind);
  }
  try {
    // The recorder (audit log, evidence, keys) is loaded only when there is something to seal.
    if (event.kind === 'pre_tool' && (verdict.decision !== 'allow' || policy.record_allows)) {
      const { recordGateDecision } = await import('../runtime/recorder.js');
      // The hook input is recorded by digest, never in full.
      recordGateDecision(policy, event, verdict, sha256Hex(req.stdin));
    } else if (event.kind === 'stop' && stopResult !== null) {
      const { recordCompletion } = await import('../runtime/recorder.js');
      recordCompletion(policy, 'in_session', stopResult, { unverified: verdict.rule === 'completion.unverified', lastMessage: event.lastMessage, inputDigest: sha256Hex(req.stdin) });
    }
    if (verdict.decision !== 'allow' || event.kind === 'stop') {
      appendSessionLog(logFile, {
        kind: 'decision',
        event: event.kind,
        tool: event.kind === 'pre_tool' ? event.tool : undefined,
        targets: event.kind === 'pre_tool' ? event.targets : undefined,
        decision: verdict.decision,
        rule: verdict.rule,
      });
    }
  } catch (err) {
    // Failing to seal or log is logged where it can be and never changes the verdict (DESIGN: audit and evidence).
    appendSessionLog(logFile, { kind: 'record_error', event: req.eventName, error: describe(err) });
  }
  try {
    return adapter.output(event.kind, verdict);
  } catch (err) {
    return broke(err, kind);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * Gatehouse's own files were changed or removed while the session ran: refused in every
 * posture (this is not an infrastructure failure), logged, and recorded in the audit log.
 */
async function tampered(req: HookRequest, what: string, refuse: (v: Verdict) => HookOutput): Promise<HookOutput> {
  const dir = sessionDir(req.stateDir, req.sessionId);
  appendSessionLog(join(dir, SESSION_FILES.log), { kind: 'tamper', event: req.eventName, what });
  try {
    const { recordTamper } = await import('../runtime/recorder.js');
    recordTamper(req.stateDir, req.sessionId, { event: req.eventName, what });
  } catch (err) {
    // Tampering refuses in every posture: failing to record it changes nothing.
    appendSessionLog(join(dir, SESSION_FILES.log), { kind: 'record_error', event: req.eventName, error: describe(err) });
  }
  const reason = `Gatehouse refused this: ${what}, so this session can no longer be checked and every action is refused. Nothing the agent does can fix this; stop and tell the operator, who must end this session (\`gatehouse session end ${req.sessionId}\`, or, if its state folder is gone, remove the hooks that name \`--session ${req.sessionId}\` from the agent's settings) and start a new one.`;
  return refuse(block('tamper', reason));
}

/** The completion gate: the verifier chain, with Gatehouse's own count of consecutive refused stops. */
async function decideStop(policy: Policy, dir: string, input: StopInput, logFile: string, signal?: AbortSignal): Promise<{ verdict: Verdict; result: ChainResult } | { tampered: string }> {
  // The chain spawns processes and reads git: loaded only at Stop, never on a PreToolUse call.
  const { runInSessionChain } = await import('./stop-chain.js');
  const run = await runInSessionChain(policy, dir, input, signal);
  if ('tampered' in run) return run;
  const { result } = run;
  const verdict = updateTurnState(dir, (s): { state: TurnState; result: Verdict } => {
    // Keep what the stages wrote (extension veto counts, the nudge flag) and count the stop.
    const decided = stopVerdict(result, s.consecutive_blocks, policy.max_stop_blocks);
    if (decided.verdict.rule === 'completion.unverified') appendSessionLog(logFile, { kind: 'unverified_stop', after_blocks: s.consecutive_blocks, rule: result.decidedBy });
    return { state: { ...s, kv: { ...s.kv, ...run.state.kv }, stops: s.stops + 1, consecutive_blocks: decided.consecutiveBlocks }, result: decided.verdict };
  });
  return { verdict, result };
}
