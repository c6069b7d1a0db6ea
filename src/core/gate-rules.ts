// The rules of one hook call that are decisions, not I/O, whatever the agent or transport:
// which shell writes the write gate judges, which verdict wins when several stages answer a
// tool call, and when a refused stop ends the turn UNVERIFIED instead.
import type { WriteTarget } from './shell/write-target.js';
import type { ChainResult, VerifierOutcome } from './verifier-chain.js';
import { allow, block, type Verdict } from './verdict.js';

/**
 * The shell write targets the write gate judges: not deletions. The scope check reports those,
 * and refusing one would also stop the agent from removing a file it wrongly created, the very
 * fix the check asks for.
 */
export function gatedShellWrites(targets: readonly WriteTarget[]): WriteTarget[] {
  return targets.filter((t) => t.kind !== 'delete');
}

/** The worst of several stage outcomes: a halt, else a block, else continue. */
export function worstOutcome(outcomes: readonly VerifierOutcome[]): VerifierOutcome {
  return outcomes.find((o) => o.kind === 'halt') ?? outcomes.find((o) => o.kind === 'block') ?? { kind: 'continue' };
}

/**
 * One tool call's verdict from its write gate and the watchdog. Order: a watchdog halt ends the
 * run; then the write gate's refusal (the most specific reason); then a watchdog block; else
 * the write gate's verdict.
 * @example toolCallVerdict(allow('write.allowed'), { kind: 'block', reason: 'same call 5 times' }) // block('tool_loop', …)
 */
export function toolCallVerdict(write: Verdict, watchdog: VerifierOutcome): Verdict {
  if (watchdog.kind === 'halt') return { decision: 'halt', rule: 'tool_loop', reason: watchdog.reason };
  if (write.decision !== 'allow') return write;
  if (watchdog.kind === 'block') return block('tool_loop', watchdog.reason);
  return write;
}

/** A stop's verdict and the count of refused stops in a row it leaves. */
export interface StopVerdict {
  verdict: Verdict;
  consecutiveBlocks: number;
}

/**
 * A stop's verdict from the verifier chain. A refusal counts; after `maxStopBlocks` refused
 * stops in a row the turn may end, as UNVERIFIED, with a note for the person (agents that cap
 * their own continuations would otherwise end it silently, or loop without end). A pass or a
 * halt resets the count.
 */
export function stopVerdict(result: ChainResult, consecutiveBlocks: number, maxStopBlocks: number): StopVerdict {
  if (result.outcome === 'continue') return { verdict: allow('completion.verified'), consecutiveBlocks: 0 };
  if (result.outcome === 'halt') return { verdict: { decision: 'halt', rule: result.decidedBy ?? 'chain', reason: result.reason ?? 'halted' }, consecutiveBlocks: 0 };
  if (consecutiveBlocks >= maxStopBlocks) {
    const checks = result.failed.length === 1 ? 'check' : 'checks';
    const note = `Gatehouse: the task ended UNVERIFIED after ${consecutiveBlocks} refused attempts to finish; the last ${checks} to fail: ${result.failed.join(', ')}. Review the work before trusting it.`;
    return { verdict: allow('completion.unverified', note), consecutiveBlocks: 0 };
  }
  return { verdict: block(result.decidedBy ?? 'chain', result.reason ?? 'blocked'), consecutiveBlocks: consecutiveBlocks + 1 };
}
