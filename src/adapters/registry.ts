// Which agents Gatehouse can gate, and how: each agent's adapter and its capability per
// gate. An agent with no adapter gets `none` everywhere: nothing is rendered for it.
import { noCapabilities, type AgentAdapter, type Capabilities } from './adapter.js';
import { claudeAdapter } from './claude/index.js';
import { qwenAdapter } from './qwen/index.js';
import { claudeSdkAdapter } from './claude-sdk/index.js';
import { geminiAdapter } from './gemini/index.js';
import { copilotAdapter } from './copilot/index.js';
import { cursorAdapter } from './cursor/index.js';
import { opencodeAdapter } from './opencode/index.js';
import { codexAdapter } from './codex/index.js';

const ADAPTERS: Readonly<Record<string, AgentAdapter>> = {
  claude: claudeAdapter,
  qwen: qwenAdapter,
  'claude-sdk': claudeSdkAdapter,
  gemini: geminiAdapter,
  copilot: copilotAdapter,
  cursor: cursorAdapter,
  opencode: opencodeAdapter,
  codex: codexAdapter,
};

/** Agent names accepted by `--agent` (anything else is a name with no hook surface). */
export const AGENT_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The adapter for an agent, or null when Gatehouse has no hook surface for it. */
export function adapterFor(agent: string): AgentAdapter | null {
  return Object.hasOwn(ADAPTERS, agent) ? ADAPTERS[agent]! : null;
}

/** Names of the agents with an adapter. */
export function knownAgents(): string[] {
  return Object.keys(ADAPTERS);
}

/** The capability table for any agent name. */
export function capabilitiesFor(agent: string): Capabilities {
  return adapterFor(agent)?.capabilities ?? noCapabilities(`no adapter for "${agent}": nothing is rendered; the end-of-session check (\`gatehouse run\`) is the only gate`);
}
