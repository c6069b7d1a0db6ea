// The Cursor adapter: entries in `<worktree>/.cursor/hooks.json` — preToolUse on the write
// tools, beforeShellExecution, and stop continuing through followup_message within its
// loop_limit. Contract-tested only: no Cursor binary runs on this kind of machine.
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { readTextOrNull } from '../../runtime/small-file.js';
import { dirname, join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import { recordsOf, voidOf, type AgentAdapter, type Capabilities, type RenderContext, type RenderedFile } from '../adapter.js';
import { shapedHook } from '../shaped/adapter.js';
import { homeOf } from '../agent-home.js';
import { undoFileEdit } from '../file-edit.js';
import { CURSOR_WRITE_TOOLS, parseCursorEvent } from './event.js';
import { cursorOutput } from './output.js';
import { boolean, list, nullable, object, text, type Infer } from '../../core/shape.js';

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'preToolUse on Write, StrReplace, Edit, Delete; {"permission":"deny"} refuses the call with the reason (contract-tested)' },
  shell_analysis: { level: 'blocking', reason: 'beforeShellExecution: the command is parsed, classified, write targets checked (contract-tested)' },
  completion_gate: { level: 'blocking', reason: 'stop answers {"followup_message"} with the failing check, within loop_limit = max_stop_blocks (contract-tested)' },
  approvals: { level: 'blocking', reason: 'preToolUse and beforeShellExecution wait on the approval queue' },
  halt: { level: 'none', reason: 'no run-ending hook output; a halt verdict refuses the call instead' },
};

/** Cursor's project hooks file. */
function cursorHooksFile(worktree: string): string {
  return join(worktree, '.cursor', 'hooks.json');
}

type CursorHook = Record<string, unknown> & { command: string };

const CursorRecord = object({ file: text(), original: nullable(text()), written: text(), createdDir: boolean(), commands: list(text()) });
type CursorRecord = Infer<typeof CursorRecord>;

function entries(ctx: RenderContext): Record<string, CursorHook[]> {
  const cmd = (event: string, timeoutS: number): string => shapedHook('cursor', ctx, event, timeoutS).command;
  const pre = cmd('preToolUse', ctx.preToolTimeoutS);
  return {
    preToolUse: CURSOR_WRITE_TOOLS.map((matcher) => ({ command: pre, matcher })),
    beforeShellExecution: [{ command: cmd('beforeShellExecution', ctx.preToolTimeoutS) }],
    stop: [{ command: cmd('stop', ctx.stopTimeoutS), loop_limit: ctx.maxStopBlocks }],
  };
}

function parse(text: string, file: string): Result<Record<string, unknown>> {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return ok(v as Record<string, unknown>);
  } catch {
    // reported below
  }
  return fail(`cannot add Gatehouse hooks to ${file}: it is not a JSON object; fix it, then run again`);
}

/** An I/O error as a message the user can act on; anything else is a bug and is thrown. */
function ioFailure(file: string, err: unknown): Result<never> {
  if (!(err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string')) throw err;
  return fail(`cannot add Gatehouse hooks to ${file}: ${err.message}. Check the path and its permissions, then run again`);
}

function render(ctx: RenderContext): Result<RenderedFile[]> {
  const file = cursorHooksFile(ctx.worktree);
  let original: string | null;
  try {
    original = readTextOrNull(file);
  } catch (err) {
    // e.g. a folder where the file should be
    return ioFailure(file, err);
  }
  const parsed = original === null ? ok({ version: 1, hooks: {} }) : parse(original, file);
  if (!parsed.ok) return parsed;
  const root = { ...parsed.value };
  const hooks = typeof root['hooks'] === 'object' && root['hooks'] !== null && !Array.isArray(root['hooks']) ? { ...(root['hooks'] as Record<string, unknown>) } : {};
  const ours = entries(ctx);
  for (const [event, list] of Object.entries(ours)) hooks[event] = [...(Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []), ...list];
  root['hooks'] = hooks;
  root['version'] ??= 1;
  const written = `${JSON.stringify(root, null, 2)}\n`;
  const createdDir = !existsSync(dirname(file));
  try {
    if (createdDir) mkdirSync(dirname(file));
    writeFileAtomic(file, written);
  } catch (err) {
    // e.g. a file where the .cursor folder should be
    if (createdDir && existsSync(dirname(file))) rmdirSync(dirname(file));
    return ioFailure(file, err);
  }
  const commands = [...new Set(Object.values(ours).flatMap((l) => l.map((h) => h.command)))];
  const record: CursorRecord = { file, original, written, createdDir, commands };
  return ok([{ file, record }]);
}

const checkRecords = (files: RenderedFile[]): Result<void> => voidOf(recordsOf(CursorRecord, files, 'Cursor'));

function unrender(files: RenderedFile[]): Result<{ removed: number }> {
  const records = recordsOf(CursorRecord, files, 'Cursor');
  if (!records.ok) return records;
  let removed = 0;
  for (const r of records.value) {
    const undone = undoFileEdit(r, (current) => {
      const parsed = parse(current, r.file);
      if (!parsed.ok) return parsed;
      const hooks = parsed.value['hooks'];
      if (typeof hooks !== 'object' || hooks === null) return ok(null);
      const next: Record<string, unknown> = {};
      for (const [event, list] of Object.entries(hooks as Record<string, unknown>)) {
        next[event] = Array.isArray(list) ? list.filter((h) => !(typeof h === 'object' && h !== null && r.commands.includes((h as CursorHook).command))) : list;
      }
      return ok(`${JSON.stringify({ ...parsed.value, hooks: next }, null, 2)}\n`);
    });
    if (!undone.ok) return undone;
    if (r.createdDir && r.original === null) {
      try {
        rmdirSync(dirname(r.file));
      } catch {
        // not empty: someone else uses it now
      }
    }
    removed += r.commands.length;
  }
  return ok({ removed });
}

/** The Cursor adapter. */
export const cursorAdapter: AgentAdapter = {
  name: 'cursor',
  capabilities: CAPABILITIES,
  settingsFiles: (worktree, env) => [cursorHooksFile(worktree), join(homeOf(env), '.cursor', 'hooks.json')],
  dataPaths: (env) => ({ dirs: [join(homeOf(env), '.cursor')], files: [] }),
  renderTargets: (worktree) => [cursorHooksFile(worktree)],
  render,
  unrender,
  checkRecords,
  parseEvent: parseCursorEvent,
  output: cursorOutput,
};
