// Every agent's name for its end-of-turn event: a failure there must block the stop, and a
// sandboxed hook that cannot reach its supervisor refuses it in the stop's own form.

/** The end-of-turn event names of all adapters. */
export const STOP_EVENTS: ReadonlySet<string> = new Set(['Stop', 'SubagentStop', 'AfterAgent', 'agentStop', 'stop']);
