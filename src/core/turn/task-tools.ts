// The agent's task list as Claude Code's task tools left it in the transcript (TodoWrite, or
// TaskCreate/TaskUpdate): only calls Claude Code accepted count, so a refused one is no list.
import { isRecord } from '../is-record.js';
import type { ExecItem } from './execution-list.js';

/**
 * The Claude Code tools whose successful calls make up the agent's task list. Claude Code
 * 2.1.328 offers TodoWrite (the whole list in each call) or, by default, TaskCreate and
 * TaskUpdate (one task per call, numbered by Claude Code), never both in one session.
 */
export const TASK_TOOL_NAMES = ['TodoWrite', 'TaskCreate', 'TaskUpdate'] as const;
export type TaskToolName = (typeof TASK_TOOL_NAMES)[number];

/**
 * The turn-state key holding the tool_use id of the last task-tool call the gate allowed: a Stop
 * waits until the transcript has that call's result (Claude Code writes the file behind its hooks).
 */
export const AWAITED_TASK_CALL_KEY = 'execution_list.awaited_call';

/** Whether `tool` is one of Claude Code's task tools. */
export const isTaskTool = (tool: string): boolean => (TASK_TOOL_NAMES as readonly string[]).includes(tool);

/** One call of a task tool, as the main agent's assistant line holds it. */
export interface TaskToolCall {
  /** The tool_use id its result names. */
  id: string;
  tool: TaskToolName;
  input: unknown;
}

/** What Claude Code answered to one tool call. */
export interface ToolOutcome {
  /** `is_error: true` on the tool_result: Claude Code refused or failed the call. */
  isError: boolean;
  /** The tool_result's text, as the model read it. */
  text: string;
  /** The line's `toolUseResult`: the tool's structured answer (its shape depends on the tool). */
  detail: unknown;
}

/** What one transcript line says about the task tools: the calls it makes and the results it holds. */
export interface TaskLineFacts {
  calls: TaskToolCall[];
  outcomes: [toolUseId: string, outcome: ToolOutcome][];
}

const STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed']);
const TOOLS: ReadonlySet<string> = new Set(TASK_TOOL_NAMES);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((b) => (isRecord(b) && typeof b.text === 'string' ? [b.text] : [])).join('\n');
}

/**
 * The task-tool calls (assistant line) and tool results (user line) in one transcript line;
 * null for junk, a line torn by a write in progress, or a subagent's (sidechain) line: its
 * calls are not the main agent's list.
 */
export function taskFactsOfLine(line: string): TaskLineFacts | null {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(entry) || entry.isSidechain === true || !isRecord(entry.message)) return null;
  const content = entry.message.content;
  if (!Array.isArray(content)) return null;
  const facts: TaskLineFacts = { calls: [], outcomes: [] };
  if (entry.type === 'assistant') {
    for (const b of content) {
      if (isRecord(b) && b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string' && TOOLS.has(b.name)) {
        facts.calls.push({ id: b.id, tool: b.name as TaskToolName, input: b.input });
      }
    }
  } else if (entry.type === 'user') {
    const results = content.filter((b): b is Record<string, unknown> => isRecord(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string');
    // `toolUseResult` belongs to the line, so it can be matched to a result only when the line holds one.
    const detail = results.length === 1 ? entry.toolUseResult : undefined;
    for (const r of results) facts.outcomes.push([r.tool_use_id as string, { isError: r.is_error === true, text: textOf(r.content), detail }]);
  }
  return facts;
}

/** The items of a TodoWrite input; null when it has no todos array. Unreadable items are left out, never guessed at. */
function todosOf(input: unknown): ExecItem[] | null {
  const todos = isRecord(input) ? input.todos : undefined;
  if (!Array.isArray(todos)) return null;
  const items: ExecItem[] = [];
  for (const t of todos) {
    if (!isRecord(t) || typeof t.content !== 'string' || typeof t.status !== 'string' || !STATUSES.has(t.status)) continue;
    items.push({ text: t.content, status: t.status as ExecItem['status'] });
  }
  return items;
}

/** The task TaskCreate made, from Claude Code's answer `{task: {id, subject}}`; null when it has none. */
function createdTask(detail: unknown): [string, ExecItem] | null {
  const task = isRecord(detail) ? detail.task : undefined;
  if (!isRecord(task) || typeof task.id !== 'string' || typeof task.subject !== 'string') return null;
  return [task.id, { id: task.id, text: task.subject, status: 'pending' }];
}

/**
 * Applies an accepted TaskUpdate, read from Claude Code's answer `{success, taskId,
 * updatedFields, statusChange?: {from, to}}` rather than from the input, which Claude Code
 * may have coerced (`id` for `taskId`). False when the update did not happen: `success:
 * false` ("Task not found", a TaskCompleted hook that refused) is not an error result.
 */
function applyUpdate(tasks: Map<string, ExecItem>, input: unknown, detail: unknown): boolean {
  if (!isRecord(detail) || detail.success !== true || typeof detail.taskId !== 'string') return false;
  const fields = Array.isArray(detail.updatedFields) ? detail.updatedFields : [];
  const to = isRecord(detail.statusChange) ? detail.statusChange.to : undefined;
  if (to === 'deleted' || fields.includes('deleted')) {
    tasks.delete(detail.taskId);
    return true;
  }
  // A task created before this transcript began (or outside its window) is not tracked: its subject is unknown.
  const task = tasks.get(detail.taskId);
  if (task === undefined) return true;
  if (typeof to === 'string' && STATUSES.has(to)) task.status = to as ExecItem['status'];
  if (fields.includes('subject') && isRecord(input) && typeof input.subject === 'string') task.text = input.subject;
  return true;
}

/**
 * Replays the task-tool calls, in transcript order, into the agent's current list; null when
 * there is none. A call counts only once its result is in the transcript and is not an error
 * (Claude Code refuses TodoWrite where the tool is off, and the refused call stays in the
 * transcript). When the newest call has no result yet the list may be about to change, so
 * there is no list to judge: this check never vetoes on a guess. TodoWrite's latest list
 * wins; TaskCreate/TaskUpdate are replayed in order, deleted tasks dropped. Whichever kind of
 * tool was used last is the list.
 */
export function taskListFromCalls(calls: readonly TaskToolCall[], outcomes: ReadonlyMap<string, ToolOutcome>): ExecItem[] | null {
  const last = calls.at(-1);
  if (last === undefined || !outcomes.has(last.id)) return null;
  let todos: ExecItem[] | null = null;
  const tasks = new Map<string, ExecItem>();
  let latest: 'todos' | 'tasks' | null = null;
  for (const call of calls) {
    const outcome = outcomes.get(call.id);
    if (outcome === undefined || outcome.isError) continue;
    if (call.tool === 'TodoWrite') {
      // An unreadable latest list makes an older one stale: say "no list" rather than judge that one.
      todos = todosOf(call.input);
      latest = 'todos';
    } else if (call.tool === 'TaskCreate') {
      const created = createdTask(outcome.detail);
      if (created === null) continue;
      tasks.set(...created);
      latest = 'tasks';
    } else if (applyUpdate(tasks, call.input, outcome.detail)) {
      latest = 'tasks';
    }
  }
  if (latest === 'tasks') return [...tasks.values()];
  return latest === 'todos' ? todos : null;
}

/**
 * The list from transcript lines in file order (any lines: those without task-tool calls or
 * their results are skipped). A result counts only after its call, and only its first copy.
 */
export function taskListFromLines(lines: Iterable<string>): ExecItem[] | null {
  const calls: TaskToolCall[] = [];
  const seen = new Set<string>();
  const outcomes = new Map<string, ToolOutcome>();
  for (const raw of lines) {
    const line = raw.trim();
    // Cheap filter first: transcripts run to megabytes and most lines are neither calls nor results.
    if (!line.includes('tool_result') && !TASK_TOOL_NAMES.some((name) => line.includes(name))) continue;
    const facts = taskFactsOfLine(line);
    if (facts === null) continue;
    for (const call of facts.calls) {
      if (seen.has(call.id)) continue;
      seen.add(call.id);
      calls.push(call);
    }
    for (const [id, outcome] of facts.outcomes) if (seen.has(id) && !outcomes.has(id)) outcomes.set(id, outcome);
  }
  return taskListFromCalls(calls, outcomes);
}
