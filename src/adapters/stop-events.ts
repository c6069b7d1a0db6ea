// Which hook events end a turn, as each adapter declares them: a failure there must block the
// stop, and a sandboxed hook that cannot reach its supervisor refuses it in the stop's own form.
import { AGENT_NAMES, hookAdapter } from './hook-adapters.js';

/** The end-of-turn event names of all adapters together: for a hook whose agent has no adapter. */
export const STOP_EVENTS: ReadonlySet<string> = new Set(AGENT_NAMES.flatMap((agent) => hookAdapter(agent)?.stopEvents ?? []));

/**
 * Whether `eventName` is `agent`'s end-of-turn event; for an agent with no adapter, whether it
 * is any adapter's.
 * @example isStopEvent('gemini', 'AfterAgent') // true; isStopEvent('gemini', 'Stop') // false
 */
export function isStopEvent(agent: string, eventName: string): boolean {
  const adapter = hookAdapter(agent);
  return adapter === undefined ? STOP_EVENTS.has(eventName) : adapter.stopEvents.includes(eventName);
}
