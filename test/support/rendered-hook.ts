// Runs a session's hook exactly as `session start` rendered it into .claude/settings.local.json
// (the command carries the policy digest), for tests that go through the real hook bundle.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitCommand } from '../../src/core/argv.js';
import type { Ran } from './cli.js';

/** The rendered command for `event` in the worktree's Claude Code settings. */
function renderedCommand(worktree: string, event: 'PreToolUse' | 'Stop'): string[] {
  const settings = JSON.parse(readFileSync(join(worktree, '.claude', 'settings.local.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  const argv = splitCommand(settings.hooks[event]![0]!.hooks[0]!.command);
  if (!argv.ok) throw new Error(argv.reason);
  return argv.value;
}

/** Runs the rendered hook for `event` in `worktree` with `payload` on stdin; killed after `timeoutMs` (status null) when given. */
export function runRenderedHook(worktree: string, event: 'PreToolUse' | 'Stop', payload: unknown, { timeoutMs }: { timeoutMs?: number } = {}): Ran {
  const argv = renderedCommand(worktree, event);
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: worktree, input: JSON.stringify(payload), encoding: 'utf8', ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Asks the session's rendered PreToolUse hook to let Claude Code write `file` (relative to `worktree`). */
export function tryWrite(worktree: string, file: string, content = '{}'): Ran {
  return runRenderedHook(worktree, 'PreToolUse', { hook_event_name: 'PreToolUse', cwd: worktree, session_id: 'x', tool_name: 'Write', tool_input: { file_path: join(worktree, file), content } });
}
