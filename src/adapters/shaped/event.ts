// The Claude-shaped hook payload (`tool_name`, `tool_input`, `cwd`, `transcript_path`, …)
// that Claude Code, Qwen Code, Gemini CLI and others send, parsed into the core's event with
// an agent's own tool table; adapters rename their fields to this shape when they differ.
import type { GateEvent, ToolKind } from '../../core/event.js';
import { fail, ok, type Result } from '../../core/result.js';
import { isRecord } from '../../core/is-record.js';
import { resolveView, type ViewSpec } from '../../core/tool-view.js';

/** The Claude-shaped end-of-turn events: a failure there blocks the stop. */
export const CLAUDE_SHAPED_STOP_EVENTS: readonly string[] = ['Stop', 'SubagentStop'];

/** A tool_use id is short (`toolu_` and a few dozen characters); a longer one is not kept. */
const MAX_CALL_ID_CHARS = 256;

/**
 * One agent tool as the gates see it: its kind, for a write tool the input key of its path, and
 * how an approval shows a call of it (which input keys hold the command, the path, the old and
 * new text, the URL). A tool without a view shows all its arguments.
 */
interface ToolEntry {
  kind: ToolKind;
  pathKey?: string;
  view?: ViewSpec;
}

/** The shell view every agent's shell tool has: its `command` argument. */
export const SHELL_VIEW: ViewSpec = { kind: 'shell', command: 'command' };

/** An agent's tool vocabulary: its own tool names mapped to the core's kinds. */
export type ToolTable = Readonly<Record<string, ToolEntry>>;

/**
 * Whether a PostToolUse `tool_response` reports a failure. Claude Code has no single error
 * field across tools; these are the shapes its tools use for errors.
 */
function toolFailed(response: unknown): boolean {
  if (typeof response === 'string') return /^(error|failed)\b/i.test(response.trim());
  if (!isRecord(response)) return false;
  if (response.is_error === true || response.isError === true || response.success === false || response.interrupted === true) return true;
  if (typeof response.error === 'string' && response.error.length > 0) return true;
  const code = response.exit_code ?? response.exitCode ?? response.returnCode;
  return typeof code === 'number' && code !== 0;
}

/**
 * Parses a Claude-shaped hook payload (`tool_name`, `tool_input`, `cwd`, …) with an agent's
 * tool table. `readsTranscript` false drops the transcript path: the turn-level verifiers
 * read Claude Code's transcript format only.
 */
export function parseClaudeShapedEvent(tools: ToolTable, eventName: string, input: unknown, fallbackCwd: string, readsTranscript = true): Result<GateEvent> {
  if (!isRecord(input)) return fail('hook input is not a JSON object');
  const cwd = typeof input.cwd === 'string' && input.cwd.length > 0 ? input.cwd : fallbackCwd;
  if (eventName === 'PreToolUse') {
    const tool = input.tool_name;
    if (typeof tool !== 'string') return fail('PreToolUse input has no tool_name');
    const entry = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
    const toolInput = isRecord(input.tool_input) ? input.tool_input : {};
    const targets: string[] = [];
    if (entry?.pathKey) {
      const p = toolInput[entry.pathKey];
      if (typeof p !== 'string') return fail(`${tool} input has no ${entry.pathKey}`);
      targets.push(p);
    }
    const callId = typeof input.tool_use_id === 'string' && input.tool_use_id.length > 0 && input.tool_use_id.length <= MAX_CALL_ID_CHARS ? input.tool_use_id : undefined;
    return ok({ kind: 'pre_tool', tool, toolKind: entry?.kind ?? 'other', targets, input: toolInput, cwd, view: resolveView(entry?.view, toolInput), ...(callId !== undefined ? { callId } : {}) });
  }
  if (eventName === 'PostToolUse') {
    const tool = typeof input.tool_name === 'string' ? input.tool_name : 'unknown';
    return ok({ kind: 'post_tool', tool, failed: toolFailed(input.tool_response), cwd });
  }
  if (CLAUDE_SHAPED_STOP_EVENTS.includes(eventName)) {
    const last = input.last_assistant_message;
    const transcript = input.transcript_path;
    return ok({
      kind: 'stop',
      cwd,
      lastMessage: typeof last === 'string' ? last : null,
      transcriptPath: readsTranscript && typeof transcript === 'string' ? transcript : null,
    });
  }
  return fail(`event ${eventName} is not one Gatehouse gates`);
}
