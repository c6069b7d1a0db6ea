// A gate's decision. `rule` names what decided, so the verdict and its audit record
// can say why; `reason` is written for the model and tells it what to do next.

/** The outcome of one gate decision. */
export type Verdict = { decision: 'allow'; rule: string; note?: string } | { decision: 'block'; rule: string; reason: string } | { decision: 'halt'; rule: string; reason: string };

/** Allows, naming the rule that let the call through. */
export function allow(rule: string, note?: string): Verdict {
  return note === undefined ? { decision: 'allow', rule } : { decision: 'allow', rule, note };
}

/** Blocks with a reason for the model. */
export function block(rule: string, reason: string): Verdict {
  return { decision: 'block', rule, reason };
}
