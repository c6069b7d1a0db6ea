// The programs that start each agent Gatehouse can gate, from the adapter registry: what the
// dashboard matches a command line against to warn that a known agent would run ungated.
import { adapterFor, knownAgents } from './registry.js';

/** An agent and the program names that start it. */
export interface AgentPrograms {
  agent: string;
  programs: string[];
}

/** Agents whose program is not named like the agent (Cursor's CLI is `cursor-agent`). */
const PROGRAM_NAMES: Readonly<Record<string, readonly string[]>> = { cursor: ['cursor-agent', 'cursor'] };

/** Agents that are libraries inside a program of the user's, not commands one types. */
const LIBRARIES: ReadonlySet<string> = new Set(['claude-sdk']);

/**
 * Every agent with an adapter and the programs that start it (none for a library).
 * @example agentPrograms().find((a) => a.agent === 'cursor') // { agent: 'cursor', programs: ['cursor-agent', 'cursor'] }
 */
export function agentPrograms(): AgentPrograms[] {
  return knownAgents()
    .filter((agent) => adapterFor(agent) !== null)
    .map((agent) => ({ agent, programs: LIBRARIES.has(agent) ? [] : [...(PROGRAM_NAMES[agent] ?? [agent])] }));
}
