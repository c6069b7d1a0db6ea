// The programs that start each agent Gatehouse can gate, from the adapter registry: what the
// dashboard matches a command line against to warn that a known agent would run ungated.
import { programOf } from '../core/program-of.js';
import { adapterFor, gatesNothing, knownAgents, NO_AGENT } from './registry.js';

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

/** A variable counts as set unless empty, `0` or `false` (an agent reads it as a flag). */
const isSet = (value: string | undefined): boolean => value !== undefined && !['', '0', 'false'].includes(value.trim().toLowerCase());

/** The variables of `env` that switch `agent`'s hooks off (see `offSwitches`), with their values. */
export function offSwitchEnv(agent: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const names = adapterFor(agent)?.offSwitches?.env ?? [];
  return Object.fromEntries(names.filter((name) => isSet(env[name])).map((name) => [name, env[name]!]));
}

/**
 * Why `agent` must not be started with `argv` in `env`: a flag or variable with which it skips
 * the session's hooks without a word (see `offSwitches`). Null when nothing switches them off.
 * @example hooksSwitchedOff('opencode', ['opencode', 'run', '--pure'], {}) // '--pure makes OpenCode load no plugin …'
 */
export function hooksSwitchedOff(agent: string, argv: readonly string[], env: NodeJS.ProcessEnv): string | null {
  const off = adapterFor(agent)?.offSwitches;
  if (off === undefined) return null;
  const flag = argv.slice(1).find((a) => off.flags.some((f) => a === f || a.startsWith(`${f}=`)));
  const variable = off.env.find((name) => isSet(env[name]));
  if (flag === undefined && variable === undefined) return null;
  const what = flag !== undefined ? `the flag ${flag}` : `${variable}=${env[variable!] ?? ''}`;
  const fix = flag !== undefined ? `leave ${flag} out` : `unset ${variable} (env -u ${variable} …)`;
  return `with ${what}, ${agent} skips the hooks Gatehouse renders without a word, so it would run ungated: ${fix} and run again`;
}

/**
 * Why a session gated as `agent` must not run `argv`: its program is another known agent's CLI,
 * which would then run without its gate (`--agent claude-sdk -- claude`). Null when it may run;
 * `none` gates nothing on purpose, so it is never refused here.
 * @example agentMismatch('gemini', ['claude'], '--agent') // 'claude is the claude agent's CLI, …: use --agent claude …'
 */
export function agentMismatch(agent: string, argv: readonly string[], flag: string): string | null {
  if (gatesNothing(agent)) return null;
  const program = programOf(argv);
  if (program === null) return null;
  const owner = agentPrograms().find((a) => a.programs.includes(program))?.agent;
  if (owner === undefined || owner === agent) return null;
  const sdk = LIBRARIES.has(agent) ? ` (${agent} gates only a program built on its SDK that calls Gatehouse's hooks in-process; it renders no hooks for ${program})` : '';
  return `${program} is the ${owner} agent's CLI, but this session gates ${agent}${sdk}, so ${program} would run ungated: use ${flag} ${owner}, or ${flag} ${NO_AGENT} to run it ungated on purpose`;
}
