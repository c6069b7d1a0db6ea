// How doctor drives each agent it can probe: the stand-in of its model API, the homes and
// settings the agent reads, its own write tool, and one run of the installed binary.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { AgentProcessRun } from './run/agent-process.js';
import { runClaude } from './run/claude-run.js';
import { makeCodexHome, runCodex } from './run/codex-run.js';
import { makeGeminiHome, runGemini } from './run/gemini-run.js';
import { isQwenTurn, runQwen } from './run/qwen-run.js';
import { isCopilotTurn, runCopilot } from './run/copilot-run.js';
import { isOpencodeTurn, runOpencode, writeOpencodeConfig } from './run/opencode-run.js';
import { tool, type Turn } from './stub/messages-api.js';
import { startStubModel } from './stub/stub-model.js';
import { addFilePatch, sentText as responsesText, startResponsesStub } from './stub/responses-api.js';
import { sentText as geminiText, startGeminiStub } from './stub/gemini-api.js';
import { startChatStub, type ChatRequest } from './stub/openai-chat.js';
import { CANARY_PROMPT, type CanaryFile } from './canary.js';
import { runSdk, sdkEntry, sdkVersion } from './run/sdk-run.js';
import { findOnPath } from '../find-on-path.js';
import { agentCacheDir, cachedAgentBinary } from './tested-agents.js';

/** The throwaway folders of one probe, all under `root`. */
export interface ProbeDirs {
  root: string;
  project: string;
  /** The agent's HOME (and XDG dirs under it). */
  home: string;
  /** Where runners make their scratch folders. */
  scratch: string;
}

/** A running stand-in: its URL, the text of every main-conversation request, script mistakes. */
interface ProbeStub {
  url: string;
  sent(): string[];
  problems: string[];
  close(): Promise<void>;
}

/** One run of the agent binary. */
interface ProbeRun {
  bin: string;
  timeoutMs: number;
  onSpawn: (pid: number) => void;
  /** Variables of the user's environment the agent keeps: its hook off-switches, so the run shows what the user's agent does. */
  keepEnv: Record<string, string>;
  /** The in-process hooks of the session (`gatehouseHooks()`), for a probe that is `inProcess`. */
  hooks: unknown;
}

/** Where a probe found what it runs: on PATH, in the agent cache, or (a library) in the current project. */
export interface ProbeTarget {
  path: string;
  from: 'path' | 'cache' | 'project';
}

/** What doctor knows about driving one agent. */
export interface AgentProbe {
  agent: string;
  /** Program names to look for on PATH. */
  programs: readonly string[];
  /** Variables session start and the agent share (the agent's config homes). */
  env(dirs: ProbeDirs, bin: string): Record<string, string>;
  startStub(script: (sent: string, index: number) => Turn): Promise<ProbeStub>;
  /** Writes the agent's own config (model provider, auth) before session start. */
  prepare?(dirs: ProbeDirs, stubUrl: string): void;
  /** The agent's write tool call for a canary file. */
  write(f: CanaryFile): Turn;
  run(dirs: ProbeDirs, stub: ProbeStub, run: ProbeRun): Promise<AgentProcessRun>;
  /**
   * A shell call the approvals canary makes (probed only for agents that have one).
   */
  approvalCall?: Turn;
  /** Files the session's trust step edits (doctor's --skip-trust puts them back, to show a silent failure). */
  trustFiles?(dirs: ProbeDirs): string[];
  /** The agent runs inside doctor's own process with the session's `gatehouseHooks()` (the Agent SDK). */
  inProcess?: true;
  /** Finds what to run when it is not a program on PATH (a library); null when it is not installed. */
  /** `project`: the folder whose installed library may be used (doctor passes one only for an agent named with --agent). */
  locate?(env: NodeJS.ProcessEnv, project: string | null): ProbeTarget | null;
  /** Its version when `--version` cannot ask it (a library). */
  version?(path: string): string | null;
}

const chatText = (req: ChatRequest): string => JSON.stringify(req.body?.messages ?? []);

const codexHome = (dirs: ProbeDirs): string => join(dirs.home, '.codex');
const copilotHome = (dirs: ProbeDirs): string => join(dirs.home, '.copilot');

/** What every runner takes from a probe's run: the binary, the probe's scratch folder (the agent's temp folder goes there), the timeout, the pid hook, the kept variables. */
const runnerOptions = (dirs: ProbeDirs, r: ProbeRun) => ({ bin: r.bin, scratchParent: dirs.scratch, timeoutMs: r.timeoutMs, onSpawn: r.onSpawn, keepEnv: r.keepEnv });

const claude: AgentProbe = {
  agent: 'claude',
  programs: ['claude'],
  env: () => ({}),
  async startStub(script) {
    const stub = await startStubModel((req, i) => script(req.raw, i));
    return { url: stub.url, sent: () => stub.turns.map((r) => r.raw), problems: stub.problems, close: () => stub.close() };
  },
  write: (f) => tool('Write', { file_path: f.abs, content: f.content }),
  approvalCall: tool('Bash', { command: 'echo gatehouse-doctor-approval' }),
  run: (dirs, stub, r) => runClaude({ cwd: dirs.project, prompt: CANARY_PROMPT, model: stub, ...runnerOptions(dirs, r) }),
};

const codex: AgentProbe = {
  agent: 'codex',
  programs: ['codex'],
  env: (dirs, bin) => ({ CODEX_HOME: codexHome(dirs), GATEHOUSE_CODEX_BIN: bin }),
  async startStub(script) {
    const stub = await startResponsesStub((req, i) => script(responsesText(req), i));
    return { url: stub.url, sent: () => stub.turns.map((r) => responsesText(r)), problems: stub.problems, close: () => stub.close() };
  },
  prepare: (dirs, url) => void makeCodexHome(codexHome(dirs), url),
  write: (f) => tool('apply_patch', addFilePatch(f.rel, f.content)),
  // Codex's shell tool: its hooks see it as `Bash` with `{command}`.
  approvalCall: tool('exec_command', { cmd: 'echo gatehouse-doctor-approval' }),
  run: (dirs, _stub, r) => runCodex({ cwd: dirs.project, prompt: CANARY_PROMPT, home: codexHome(dirs), ...runnerOptions(dirs, r) }),
  trustFiles: (dirs) => [join(codexHome(dirs), 'config.toml')],
};

const gemini: AgentProbe = {
  agent: 'gemini',
  programs: ['gemini'],
  env: (dirs) => ({ GEMINI_CLI_HOME: dirs.home }),
  async startStub(script) {
    const stub = await startGeminiStub((req, i) => script(geminiText(req), i));
    return { url: stub.url, sent: () => stub.turns.map((r) => geminiText(r)), problems: stub.problems, close: () => stub.close() };
  },
  prepare: (dirs) => void makeGeminiHome(dirs.home),
  write: (f) => tool('write_file', { file_path: f.abs, content: f.content }),
  approvalCall: tool('run_shell_command', { command: 'echo gatehouse-doctor-approval' }),
  run: (dirs, stub, r) => runGemini({ cwd: dirs.project, prompt: CANARY_PROMPT, model: stub, home: dirs.home, ...runnerOptions(dirs, r) }),
  trustFiles: (dirs) => [join(dirs.home, '.gemini', 'trustedFolders.json')],
};

const qwen: AgentProbe = {
  agent: 'qwen',
  programs: ['qwen'],
  env: () => ({}),
  async startStub(script) {
    const stub = await startChatStub((req, i) => script(chatText(req), i), { isTurn: isQwenTurn });
    return { url: stub.url, sent: () => stub.turns.map(chatText), problems: stub.problems, close: () => stub.close() };
  },
  write: (f) => tool('write_file', { file_path: f.abs, content: f.content }),
  approvalCall: tool('run_shell_command', { command: 'echo gatehouse-doctor-approval' }),
  run: (dirs, stub, r) => runQwen({ cwd: dirs.project, prompt: CANARY_PROMPT, model: stub, ...runnerOptions(dirs, r) }),
};

const copilot: AgentProbe = {
  agent: 'copilot',
  programs: ['copilot'],
  env: (dirs) => ({ COPILOT_HOME: copilotHome(dirs) }),
  async startStub(script) {
    const stub = await startChatStub((req, i) => script(chatText(req), i), { isTurn: isCopilotTurn });
    return { url: stub.url, sent: () => stub.turns.map(chatText), problems: stub.problems, close: () => stub.close() };
  },
  prepare: (dirs) => void mkdirSync(copilotHome(dirs), { recursive: true }),
  write: (f) => tool('create', { path: f.abs, file_text: f.content }),
  approvalCall: tool('bash', { command: 'echo gatehouse-doctor-approval', description: 'doctor' }),
  run: (dirs, stub, r) => runCopilot({ cwd: dirs.project, prompt: CANARY_PROMPT, model: stub, home: copilotHome(dirs), ...runnerOptions(dirs, r) }),
  trustFiles: (dirs) => [join(copilotHome(dirs), 'config.json')],
};

const opencode: AgentProbe = {
  agent: 'opencode',
  programs: ['opencode'],
  env: () => ({}),
  async startStub(script) {
    const stub = await startChatStub((req, i) => script(chatText(req), i), { isTurn: isOpencodeTurn });
    return { url: stub.url, sent: () => stub.turns.map(chatText), problems: stub.problems, close: () => stub.close() };
  },
  // The stand-in is the project's provider (opencode.json); the approvals run points it at its own.
  prepare: (dirs, url) => writeOpencodeConfig(dirs.project, url),
  write: (f) => tool('write', { filePath: f.abs, content: f.content }),
  approvalCall: tool('bash', { command: 'echo gatehouse-doctor-approval', description: 'doctor' }),
  run: (dirs, _stub, r) => runOpencode({ cwd: dirs.project, prompt: CANARY_PROMPT, home: dirs.home, ...runnerOptions(dirs, r) }),
};

/** The Claude Code binary the SDK drives: on PATH, else the pinned one. */
const sdkClaude = (env: NodeJS.ProcessEnv): string | null => findOnPath('claude', env) ?? cachedAgentBinary('claude', env);

const claudeSdk: AgentProbe = {
  agent: 'claude-sdk',
  programs: [],
  env: () => ({}),
  startStub: claude.startStub,
  write: claude.write,
  approvalCall: claude.approvalCall,
  inProcess: true,
  // The current project's SDK is code of that project, run in doctor's own process: only when asked for by name.
  locate: (env, project) => (sdkClaude(env) === null ? null : sdkEntry(project, agentCacheDir(env))),
  version: sdkVersion,
  run(dirs, stub, r) {
    const claudeBin = sdkClaude(process.env);
    if (claudeBin === null) throw new Error('no Claude Code binary for the SDK to drive: install claude, or run scripts/install-agents.mjs');
    return runSdk({
      entry: r.bin,
      cwd: dirs.project,
      prompt: CANARY_PROMPT,
      model: stub,
      claudeBin,
      hooks: r.hooks,
      scratchParent: dirs.scratch,
      timeoutMs: r.timeoutMs,
      onSpawn: r.onSpawn,
      keepEnv: r.keepEnv,
    });
  },
};

const PROBES: readonly AgentProbe[] = [claude, codex, gemini, qwen, copilot, opencode, claudeSdk];

/**
 * Why doctor cannot run an agent it knows: no binary runs here, or its run needs the network.
 * Every other agent with an adapter has a probe above.
 */
export const UNPROBED: Readonly<Record<string, string>> = {
  cursor: 'no Cursor binary runs on this kind of machine; its hooks are covered by contract tests only',
};

/** The probe for an agent, or undefined when doctor has none (see {@link UNPROBED}). */
export function probeFor(agent: string): AgentProbe | undefined {
  return PROBES.find((p) => p.agent === agent);
}
