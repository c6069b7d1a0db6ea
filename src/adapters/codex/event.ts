// Parses Codex CLI's hook stdin (Claude-shaped: `tool_name`, `tool_input`, `cwd`). Shell calls
// arrive as `Bash`; file changes as `apply_patch`, whose one argument is the patch text: every
// path it adds, updates, deletes or moves to becomes a write target, and a patch that cannot
// be read is refused rather than guessed at. A shell command that runs apply_patch is gated
// the same way.
import { isAbsolute, join } from 'node:path';
import type { GateEvent } from '../../core/event.js';
import { ok, type Result } from '../../core/result.js';
import { parseClaudeShapedEvent, SHELL_VIEW, type ToolTable } from '../shaped/event.js';
import { patchTargets, patchWritePaths } from './patch.js';

/** The tool that applies Codex's patch format. */
export const APPLY_PATCH = 'apply_patch';

/** Codex CLI's tool names, as its hooks report them, and what each one does for the gates. */
const CODEX_TOOL_KINDS: ToolTable = {
  Bash: { kind: 'shell', view: SHELL_VIEW },
  [APPLY_PATCH]: { kind: 'write' },
  view_image: { kind: 'read', view: { kind: 'read', lead: 'path' } },
};

/**
 * `apply_patch` run as a command (Codex applies `apply_patch <<'EOF' … EOF`, optionally after
 * `cd DIR &&`, itself, and puts an `apply_patch` program on the shell's PATH): the word in
 * command position — at the start, or after `;`, `&`, `|`, `(`, a backtick, `$(` or a newline.
 */
const SHELL_APPLY_PATCH = /(?:^|[;&|(`\n]|\$\()\s*(?:cd\s+(?:'[^']*'|"[^"]*"|\S+)\s*&&\s*)?(?:apply_patch|applypatch)(?![\w-])/;
const CD_PREFIX = /^\s*cd\s+(?:'([^']*)'|"([^"]*)"|(\S+))\s*&&/;
const BEGIN = '*** Begin Patch';
const END = '*** End Patch';

/** The write targets of a shell command that runs apply_patch; null when it runs none. */
function shellPatchTargets(command: string): { targets: string[] } | { unreadable: string } | null {
  if (!SHELL_APPLY_PATCH.test(command)) return null;
  const begin = command.indexOf(BEGIN);
  const end = command.lastIndexOf(END);
  const cannot = "it runs apply_patch, and Gatehouse can check a patch only when it is written out in full: send it with the apply_patch tool, or as apply_patch <<'EOF' … EOF";
  if (begin < 0 || end < begin) return { unreadable: cannot };
  const parsed = patchTargets(command.slice(begin, end + END.length));
  if (!parsed.ok) return { unreadable: `the patch cannot be read: ${parsed.reason}` };
  const cd = CD_PREFIX.exec(command);
  const dir = cd ? (cd[1] ?? cd[2] ?? cd[3] ?? '') : '';
  return { targets: patchWritePaths(parsed.value).map((p) => (dir === '' || isAbsolute(p) ? p : join(dir, p))) };
}

/** The patch text of an apply_patch call (`{command}` as observed; `input`/`patch` accepted too). */
function patchText(input: unknown): string | null {
  if (typeof input === 'string') return input;
  if (typeof input !== 'object' || input === null) return null;
  const o = input as Record<string, unknown>;
  for (const key of ['command', 'input', 'patch']) if (typeof o[key] === 'string') return o[key];
  return null;
}

/**
 * Parses one Codex hook payload. Its transcript is Codex's own rollout format, so the
 * transcript-reading verifiers get none (they skip, they do not misread).
 */
export function parseCodexEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  const parsed = parseClaudeShapedEvent(CODEX_TOOL_KINDS, eventName, input, fallbackCwd, false);
  if (!parsed.ok || parsed.value.kind !== 'pre_tool') return parsed;
  const event = parsed.value;
  if (event.toolKind === 'shell') {
    const command = (event.input as { command?: unknown }).command;
    const found = typeof command === 'string' ? shellPatchTargets(command) : null;
    return ok(found === null ? event : { ...event, ...found });
  }
  if (event.tool !== APPLY_PATCH) return parsed;
  const text = patchText(event.input);
  if (text === null) return ok({ ...event, unreadable: 'the call carries no patch text' });
  const targets = patchTargets(text);
  if (!targets.ok) return ok({ ...event, unreadable: `the patch cannot be read: ${targets.reason}` });
  const ops = targets.value.map((t) => ({ op: t.op, path: t.path, ...(t.move_to !== undefined ? { to: t.move_to } : {}) }));
  return ok({ ...event, targets: patchWritePaths(targets.value), view: { kind: 'patch', ops } });
}
