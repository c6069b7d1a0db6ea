// Which known agent a new-session command line starts, from the server's list (the adapter
// registry, `GET /api/agents`), so the form can warn before an agent runs without its gate.
// The server's own type for what `GET /api/agents` lists (a type only: nothing of it is bundled).
import type { AgentPrograms } from '../adapters/agent-programs.js';
import { programOf } from '../core/program-of.js';
import { splitCommandLine } from './format.js';
import type { SessionFields } from './new-session-form.js';

export type { AgentPrograms };

export { programOf };

/** The agents this server can gate; empty when it cannot be asked (the form then warns about nothing). */
export async function fetchAgentPrograms(): Promise<AgentPrograms[]> {
  try {
    const res = await fetch('/api/agents', { credentials: 'same-origin', cache: 'no-store' });
    if (!res.ok) return [];
    const body = (await res.json()) as { agents?: unknown };
    if (!Array.isArray(body.agents)) return [];
    return body.agents.flatMap((a: unknown) => {
      const { agent, programs } = (typeof a === 'object' && a !== null ? a : {}) as Record<string, unknown>;
      return typeof agent === 'string' && Array.isArray(programs) ? [{ agent, programs: programs.filter((p): p is string => typeof p === 'string') }] : [];
    });
  } catch {
    return [];
  }
}

/** The agent whose program `program` is, or null. */
function agentOf(program: string | null, agents: readonly AgentPrograms[]): string | null {
  if (program === null) return null;
  return agents.find((a) => a.programs.includes(program))?.agent ?? null;
}

/** Why starting the form as it is would run a known agent without its gate, and the agent to gate it as. */
export interface UngatedWarning {
  text: string;
  agent: string;
}

/**
 * A warning when the form would start a known agent ungated: a plain command that is an
 * agent's program, or an agent session whose command is another agent's program.
 * @example ungatedWarning({ mode: 'command', commandLine: 'claude', … }, agents)?.agent // 'claude'
 */
export function ungatedWarning(f: SessionFields, agents: readonly AgentPrograms[]): UngatedWarning | null {
  const argv = splitCommandLine(f.commandLine.trim());
  const program = argv === null ? null : programOf(argv);
  const agent = agentOf(program, agents);
  if (agent === null || program === null) return null;
  if (f.mode === 'command') {
    return {
      agent,
      text: `${program} is the ${agent} agent, and this starts it without a gate: its writes, shell commands and stop are not checked. Press "Gate it" to run it under a gate, or "Start ungated" to run it anyway.`,
    };
  }
  const gated = f.agent.trim();
  if (gated === '' || gated === agent) return null;
  return {
    agent,
    text: `The command line starts ${program} (the ${agent} agent), but the hooks are rendered for ${gated}: ${program} would run without a gate. Press "Gate it" to gate it as ${agent}, or "Start ungated" to run it anyway.`,
  };
}
