// An adapter for agents whose hooks are Claude Code's shape: `{"hooks": {"PreToolUse":
// [{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}], "Stop": …}}` in a JSON
// settings file, exit 2 refusing. Claude Code and Qwen Code are built from this.
import { fail, ok, type Result } from '../../core/result.js';
import { recordsOf, voidOf, type Capabilities, type HookOutput, type RenderContext, type RenderedFile, type SyncRenderAdapter } from '../adapter.js';
import type { GateEvent } from '../../core/event.js';
import type { Verdict } from '../../core/verdict.js';
import { removeHooks, RenderRecord, renderHooks, type HookEntry } from './render.js';
import { hookInvocation } from '../hook-transport.js';

/** PreToolUse work is a few path checks; a minute is far beyond any real run and still bounded. */
const PRE_TOOL_TIMEOUT_S = 60;

/** The agent's names for the three hook events Gatehouse renders. */
interface ShapedEvents {
  preTool: string;
  stop: string;
  postTool: string;
}

const CLAUDE_EVENTS: ShapedEvents = { preTool: 'PreToolUse', stop: 'Stop', postTool: 'PostToolUse' };

/** What differs between Claude-shaped agents. */
export interface ClaudeShapedSpec {
  name: string;
  capabilities: Capabilities;
  /** The settings file the session's hooks are rendered into. */
  settingsFile(worktree: string): string;
  /** Every settings file that could switch the hooks off (the write gate protects them). */
  settingsFiles(worktree: string, env: NodeJS.ProcessEnv): string[];
  /** The agent's own data folders and files (absolute), writable inside a sandbox. */
  dataPaths(env: NodeJS.ProcessEnv): { dirs: string[]; files: string[] };
  /** The PreToolUse matcher when only the write tools are watched. */
  writeMatcher: string;
  parseEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent>;
  output(event: GateEvent['kind'], verdict: Verdict): HookOutput;
  /** Event names, when not Claude Code's (Gemini CLI: BeforeTool, AfterAgent, AfterTool). */
  events?: ShapedEvents;
  /** False when the agent's PostToolUse says nothing of failure (Codex: output only): none is rendered. */
  reportsFailures?: boolean;
  /** Units of the rendered `timeout` per second: 1 (Claude Code, seconds) or 1000 (Gemini CLI, milliseconds). */
  timeoutUnitsPerSecond?: number;
}

/**
 * The hook for one event: the cold command runs the bundle by absolute paths (no npx, no
 * PATH lookup); a warm session wraps it in the bash client, which falls back to it.
 */
export function shapedHook(agent: string, ctx: RenderContext, event: string, timeoutS: number): { event: string; command: string; timeout: number } {
  const argv = [ctx.nodePath, ctx.hookBundle, 'check', '--session', ctx.sessionId, '--event', event, '--state-dir', ctx.projectState, '--agent', agent, '--policy-sha256', ctx.policyDigest];
  if (ctx.failClosed) argv.push('--fail-closed');
  return { event, ...hookInvocation(argv, { sessionId: ctx.sessionId, event, agent, failClosed: ctx.failClosed, policyDigest: ctx.policyDigest }, timeoutS, ctx.warm) };
}

/** Builds the adapter for a Claude-shaped agent. */
export function claudeShapedAdapter(spec: ClaudeShapedSpec): SyncRenderAdapter {
  return {
    name: spec.name,
    capabilities: spec.capabilities,
    settingsFiles: (worktree, env) => spec.settingsFiles(worktree, env),
    dataPaths: (env) => spec.dataPaths(env),
    renderTargets: (worktree) => [spec.settingsFile(worktree)],
    render(ctx: RenderContext): Result<RenderedFile[]> {
      const ev = spec.events ?? CLAUDE_EVENTS;
      const units = spec.timeoutUnitsPerSecond ?? 1;
      const hook = (event: string, timeoutS: number): { event: string; command: string; timeout: number } => {
        const h = shapedHook(spec.name, ctx, event, timeoutS);
        return { ...h, timeout: h.timeout * units };
      };
      const entries: HookEntry[] = [
        // `*` matches every tool; otherwise the exact write tools (a regex like `Edit.*` would over-match).
        { matcher: ctx.watchAllTools ? '*' : spec.writeMatcher, ...hook(ev.preTool, ctx.preToolTimeoutS) },
        hook(ev.stop, ctx.stopTimeoutS),
      ];
      if (ctx.trackFailures && spec.reportsFailures !== false) entries.push({ matcher: '*', ...hook(ev.postTool, PRE_TOOL_TIMEOUT_S) });
      const file = spec.settingsFile(ctx.worktree);
      const r = renderHooks(file, entries);
      if (!r.ok) return fail(r.reason);
      return ok([{ file, record: r.value }]);
    },
    unrender(files: RenderedFile[]) {
      const records = recordsOf(RenderRecord, files, spec.name);
      if (!records.ok) return records;
      let removed = 0;
      for (const record of records.value) {
        const r = removeHooks(record);
        if (!r.ok) return fail(r.reason);
        removed += r.value.removed;
      }
      return ok({ removed });
    },
    checkRecords: (files: RenderedFile[]) => voidOf(recordsOf(RenderRecord, files, spec.name)),
    parseEvent: spec.parseEvent,
    output: spec.output,
  };
}
