// The agent's own execution list (Claude Code's task tools, or a markdown scratchpad):
// reads it and refuses to let the turn end while items on it are unfinished.
import type { TurnVerifier, VerifierOutcome } from '../verifier-chain.js';
import type { TurnVerifyContext, VerifierOptions } from './context.js';
import { taskListFromLines } from './task-tools.js';

/** One item on the agent's list. */
export interface ExecItem {
  text: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** The number the agent's tool gave the task (Claude Code's TaskCreate), for a refusal to name. */
  id?: string;
}

/** Unfinished items named in a refusal: enough to act on, short enough to read at a glance. */
const MAX_LISTED_ITEMS = 8;

/**
 * The agent's current list from a Claude Code transcript (JSONL), or null when there is
 * none: only task-tool calls that Claude Code accepted count (see task-tools.ts). Junk and
 * torn lines are skipped: the transcript is written asynchronously, so its tail may lag
 * behind the session or end mid-line.
 * @example todosFromTranscript(readFileSync(event.transcriptPath, 'utf8'))
 */
export function todosFromTranscript(jsonlText: string): ExecItem[] | null {
  return taskListFromLines(jsonlText.split('\n'));
}

/** A markdown scratchpad: its objective and its plan. */
export interface Scratchpad {
  objective: string | null;
  items: ExecItem[];
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const CHECKBOX = /^\s*[-*+]\s+\[([ xX~])\]\s+(.*?)\s*$/;
const FENCE = /^\s*(```|~~~)/;
const MARKS: Readonly<Record<string, ExecItem['status']>> = { ' ': 'pending', '~': 'in_progress', x: 'completed', X: 'completed' };

/**
 * Parses a scratchpad for library agent loops: the `## Objective` text and the
 * checkbox items under `## Plan` (`- [ ]` pending, `- [~]` in progress, `- [x]` done).
 * Sub-headings stay inside their section; fenced code is ignored.
 * @example parseScratchpad('## Plan\n- [x] read\n- [ ] fix').items.length // 2
 */
export function parseScratchpad(markdown: string): Scratchpad {
  let section: 'objective' | 'plan' | null = null;
  let inFence = false;
  const objective: string[] = [];
  const items: ExecItem[] = [];
  for (const line of markdown.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const h = HEADING.exec(line);
    if (h && h[1]!.length <= 2) {
      const title = h[2]!.toLowerCase();
      section = h[1]!.length === 2 && title === 'objective' ? 'objective' : h[1]!.length === 2 && title === 'plan' ? 'plan' : null;
      continue;
    }
    if (section === 'objective') objective.push(line);
    if (section === 'plan') {
      const m = CHECKBOX.exec(line);
      if (m && m[2]!.length > 0) items.push({ text: m[2]!, status: MARKS[m[1]!]! });
    }
  }
  const text = objective.join('\n').trim();
  return { objective: text.length > 0 ? text : null, items };
}

/** Refuses the stop while the list has unfinished items; no list, or all done, continues. */
export function checkExecutionList(items: readonly ExecItem[] | null): VerifierOutcome {
  const open = (items ?? []).filter((i) => i.status !== 'completed');
  if (open.length === 0) return { kind: 'continue' };
  const lines = open.slice(0, MAX_LISTED_ITEMS).map((i) => `- ${i.id !== undefined ? `#${i.id} ` : ''}${i.text}${i.status === 'in_progress' ? ' (in progress)' : ''}`);
  if (open.length > MAX_LISTED_ITEMS) lines.push(`…and ${open.length - MAX_LISTED_ITEMS} more`);
  // Numbered tasks are changed one by one, with the tool that numbered them.
  const how = open.some((i) => i.id !== undefined)
    ? 'update each task with TaskUpdate: status "completed" for what is done, "deleted" for what no longer applies.'
    : 'update the list: mark what is done as completed and remove what no longer applies.';
  return {
    kind: 'block',
    reason: `Your task list still has ${open.length} unfinished item(s):\n${lines.join('\n')}\nFinish them before you stop, or ${how}`,
    detail: { unfinished: open.length, in_progress: open.filter((i) => i.status === 'in_progress').length },
  };
}

/**
 * The execution-list check as a chain stage. It judges only a real stop (`end_turn`):
 * mid-turn the list is expected to have open items.
 * @example executionListVerifier(() => todosFromTranscript(readFileSync(transcriptPath, 'utf8')))
 */
export function executionListVerifier<C extends TurnVerifyContext>(getItems: (ctx: C) => ExecItem[] | null | Promise<ExecItem[] | null>, options: VerifierOptions = {}): TurnVerifier<C> {
  return {
    name: 'execution_list',
    posture: options.posture ?? 'fail-open',
    async verify(ctx) {
      if (ctx.stop_reason !== 'end_turn') return { kind: 'continue' };
      return checkExecutionList(await getItems(ctx));
    },
  };
}
