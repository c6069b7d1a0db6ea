// The Stop side: an ordered chain of turn-level verifiers between "the model wants to
// stop" and "the turn ends". The first verifier that does not say continue decides.

/** What one verifier says about the stop. */
export type VerifierOutcome =
  | { kind: 'continue'; detail?: unknown }
  | { kind: 'block'; reason: string; detail?: unknown }
  | { kind: 'halt'; reason: string; detail?: unknown };

/** How a verifier's own failure (a throw, a rejection) is treated. */
export type VerifierPosture = 'fail-open' | 'fail-closed';

/** One verifier. It keeps no mutable state of its own; per-session state is passed in. */
export interface TurnVerifier<C> {
  /** Stable name: it appears in verdicts and audit records. */
  readonly name: string;
  readonly posture: VerifierPosture;
  verify(ctx: C, signal: AbortSignal): Promise<VerifierOutcome>;
}

/** What happened at one stage of the chain. */
export interface VerifierRecord {
  name: string;
  outcome: 'continue' | 'block' | 'halt' | 'error' | 'skipped';
  reason?: string;
  detail?: unknown;
}

/** The chain's verdict and the record of every stage it ran. */
export interface ChainResult {
  outcome: 'continue' | 'block' | 'halt';
  /** Name of the verifier that decided (absent when every stage continued). */
  decidedBy: string | null;
  reason: string | null;
  records: VerifierRecord[];
}

/**
 * Runs verifiers in order; the first non-continue wins and later stages are skipped.
 * @example await new VerifierChain([producers, scope]).run(ctx, signal)
 */
export class VerifierChain<C> {
  constructor(
    private readonly verifiers: readonly TurnVerifier<C>[],
    private readonly enabled = true,
  ) {}

  async run(ctx: C, signal: AbortSignal): Promise<ChainResult> {
    const records: VerifierRecord[] = [];
    if (!this.enabled) return { outcome: 'continue', decidedBy: null, reason: null, records };
    for (let i = 0; i < this.verifiers.length; i++) {
      const v = this.verifiers[i]!;
      let out: VerifierOutcome;
      try {
        out = await v.verify(ctx, signal);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        records.push({ name: v.name, outcome: 'error', reason: message });
        if (v.posture === 'fail-open') continue;
        out = { kind: 'block', reason: `The check "${v.name}" could not run (${message}), so completion cannot be verified. Fix what stops it from running, then finish again.` };
        records.pop();
        records.push({ name: v.name, outcome: 'block', reason: out.reason, detail: { error: message } });
        return this.finish(records, i, 'block', v.name, out.reason);
      }
      const rec: VerifierRecord = { name: v.name, outcome: out.kind };
      if (out.kind !== 'continue') rec.reason = out.reason;
      if (out.detail !== undefined) rec.detail = out.detail;
      records.push(rec);
      if (out.kind !== 'continue') return this.finish(records, i, out.kind, v.name, out.reason);
    }
    return { outcome: 'continue', decidedBy: null, reason: null, records };
  }

  private finish(records: VerifierRecord[], index: number, outcome: 'block' | 'halt', name: string, reason: string): ChainResult {
    for (const later of this.verifiers.slice(index + 1)) records.push({ name: later.name, outcome: 'skipped' });
    return { outcome, decidedBy: name, reason, records };
  }
}
