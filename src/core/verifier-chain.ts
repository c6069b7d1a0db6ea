// The Stop side: an ordered chain of turn-level verifiers between "the model wants to
// stop" and "the turn ends". The first verifier that does not say continue decides.

/** What one verifier says about the stop. `summary`: the same finding in words for a person (the reason is for the agent). */
export type VerifierOutcome =
  { kind: 'continue'; detail?: unknown } | { kind: 'block'; reason: string; summary?: string; detail?: unknown } | { kind: 'halt'; reason: string; summary?: string; detail?: unknown };

/** How a verifier's own failure (a throw, a rejection) is treated. */
export type VerifierPosture = 'fail-open' | 'fail-closed';

/** One verifier. It keeps no mutable state of its own; per-session state is passed in. */
export interface TurnVerifier<C> {
  /** Stable name: it appears in verdicts and audit records. */
  readonly name: string;
  readonly posture: VerifierPosture;
  /**
   * A completion check (the task's required checks, the scope check): it still runs after an
   * earlier stage refused the stop, so one refusal names everything that is wrong at once.
   */
  readonly completion?: boolean;
  verify(ctx: C, signal: AbortSignal): Promise<VerifierOutcome>;
}

/** What happened at one stage of the chain. */
export interface VerifierRecord {
  name: string;
  outcome: 'continue' | 'block' | 'halt' | 'error' | 'skipped';
  reason?: string;
  /** The finding in words for a person, when the verifier gave one. */
  summary?: string;
  detail?: unknown;
}

/** The chain's verdict and the record of every stage it ran. */
export interface ChainResult {
  outcome: 'continue' | 'block' | 'halt';
  /** Name of the verifier that decided: the halting one, else the first that refused (null when every stage continued). */
  decidedBy: string | null;
  /** Every verifier that refused the stop, in order (the halting one for a halt); empty when it passed. */
  failed: string[];
  /** For the agent: every refusal's reason, in order. */
  reason: string | null;
  records: VerifierRecord[];
}

/** A stage that refused, as the verdict quotes it. */
interface Refusal {
  name: string;
  reason: string;
}

/**
 * Runs verifiers in order. The first non-continue decides; after a block, the later completion
 * checks still run (their refusals join the verdict) and the other stages are skipped; a halt
 * ends the chain at once.
 * @example await new VerifierChain([producers, scope]).run(ctx, signal)
 */
export class VerifierChain<C> {
  constructor(
    private readonly verifiers: readonly TurnVerifier<C>[],
    private readonly enabled = true,
  ) {}

  async run(ctx: C, signal: AbortSignal): Promise<ChainResult> {
    const records: VerifierRecord[] = [];
    const refusals: Refusal[] = [];
    if (!this.enabled) return { outcome: 'continue', decidedBy: null, failed: [], reason: null, records };
    for (let i = 0; i < this.verifiers.length; i++) {
      const v = this.verifiers[i]!;
      if (refusals.length > 0 && v.completion !== true) {
        records.push({ name: v.name, outcome: 'skipped' });
        continue;
      }
      let out: VerifierOutcome;
      try {
        out = await v.verify(ctx, signal);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (v.posture === 'fail-open') {
          records.push({ name: v.name, outcome: 'error', reason: message });
          continue;
        }
        const reason = `The check "${v.name}" could not run (${message}), so completion cannot be verified. Fix what stops it from running, then finish again.`;
        out = { kind: 'block', reason, summary: `the check "${v.name}" could not run: ${message}`, detail: { error: message } };
      }
      const rec: VerifierRecord = { name: v.name, outcome: out.kind };
      if (out.kind !== 'continue') {
        rec.reason = out.reason;
        if (out.summary !== undefined) rec.summary = out.summary;
      }
      if (out.detail !== undefined) rec.detail = out.detail;
      records.push(rec);
      if (out.kind === 'halt') {
        for (const later of this.verifiers.slice(i + 1)) records.push({ name: later.name, outcome: 'skipped' });
        return { outcome: 'halt', decidedBy: v.name, failed: [v.name], reason: out.reason, records };
      }
      if (out.kind === 'block') refusals.push({ name: v.name, reason: out.reason });
    }
    if (refusals.length === 0) return { outcome: 'continue', decidedBy: null, failed: [], reason: null, records };
    return { outcome: 'block', decidedBy: refusals[0]!.name, failed: refusals.map((r) => r.name), reason: joinRefusals(refusals), records };
  }
}

/** One refusal's reason as it is; several: a line naming them all, then each reason in turn. */
function joinRefusals(refusals: readonly Refusal[]): string {
  if (refusals.length === 1) return refusals[0]!.reason;
  const names = refusals.map((r) => r.name).join(', ');
  return [`${refusals.length} checks refuse this stop (${names}); fix all of them before you finish:`, ...refusals.map((r) => r.reason)].join('\n\n');
}
