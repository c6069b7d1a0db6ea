// Which agents Gatehouse can gate, and how: each agent's adapter and its capability per
// gate. Any other name is refused; `none` (gate nothing in-session) must be asked for by name.
import { fail, ok, type Result } from '../core/result.js';
import { closestKey } from '../core/closest-key.js';
import { noCapabilities, type AgentAdapter, type Capabilities } from './adapter.js';
import { claudeAdapter } from './claude/index.js';
import { qwenAdapter } from './qwen/index.js';
import { claudeSdkAdapter } from './claude-sdk/index.js';
import { geminiAdapter } from './gemini/index.js';
import { copilotAdapter } from './copilot/index.js';
import { cursorAdapter } from './cursor/index.js';
import { opencodeAdapter } from './opencode/index.js';
import { codexAdapter } from './codex/index.js';
import { AGENT_NAMES, type AgentName } from './hook-adapters.js';

/** The full adapter of every agent in the one declared list (hook-adapters.ts): one each, no more. */
const ADAPTERS: Readonly<Record<AgentName, AgentAdapter>> = {
  claude: claudeAdapter,
  qwen: qwenAdapter,
  'claude-sdk': claudeSdkAdapter,
  gemini: geminiAdapter,
  copilot: copilotAdapter,
  cursor: cursorAdapter,
  opencode: opencodeAdapter,
  codex: codexAdapter,
};

/** The shape of an agent name in a rendered hook command or warm hook URL (canonical: lower case). */
export const AGENT_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * `--agent none`: render nothing and gate nothing in-session, on purpose; only the
 * end-of-session check judges the work. A typo must never mean this, so it has its own name.
 */
export const NO_AGENT = 'none';

/** How the caller's users name the agent, for the refusal's "what to do" (the CLI's flag by default). */
export interface AgentField {
  /** e.g. `--agent` */
  name: string;
  /** How to ask for no in-session gate, e.g. `--agent none`. */
  none: string;
}

const CLI_FIELD: AgentField = { name: '--agent', none: `--agent ${NO_AGENT}` };

/**
 * The agent a user named, in its canonical spelling, or why it is not one. Names are matched
 * without regard to case (`Claude` is `claude`), everywhere a name is taken (CLI and dashboard).
 * @example parseAgentName('Claude') // ok('claude'); parseAgentName('claud') fails with "did you mean claude?"
 */
export function parseAgentName(name: string, field: AgentField = CLI_FIELD): Result<string> {
  const canonical = name.trim().toLowerCase();
  if (canonical === NO_AGENT || Object.hasOwn(ADAPTERS, canonical)) return ok(canonical);
  const near = closestKey(canonical, knownAgents());
  const hint = near === null ? '' : ` (did you mean ${near}?)`;
  return fail(
    `unknown agent ${JSON.stringify(name)}${hint}. Gatehouse can gate: ${knownAgents().join(', ')}. ` +
      `Name one of them with ${field.name}, or use ${field.none} to run without any in-session gate (only the end-of-session check then judges the work).`,
  );
}

/** True when the session gates nothing in-session (`--agent none`). */
export function gatesNothing(agent: string): boolean {
  return agent === NO_AGENT;
}

/** The adapter for an agent, or null when Gatehouse has no hook surface for it. */
export function adapterFor(agent: string): AgentAdapter | null {
  return Object.hasOwn(ADAPTERS, agent) ? ADAPTERS[agent as AgentName] : null;
}

/** Names of the agents with an adapter. */
export function knownAgents(): string[] {
  return [...AGENT_NAMES];
}

/** The capability table for an agent name (`none`, or a session recorded by an older Gatehouse: nothing). */
export function capabilitiesFor(agent: string): Capabilities {
  const why = gatesNothing(agent) ? `--agent ${NO_AGENT}: nothing is rendered, on purpose` : `no adapter for "${agent}": nothing is rendered`;
  return adapterFor(agent)?.capabilities ?? noCapabilities(`${why}; the end-of-session check (\`gatehouse run\`, \`session check\`) is the only gate`);
}
