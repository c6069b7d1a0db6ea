// The Codex CLI adapter: Claude-shaped hooks in `<worktree>/.codex/hooks.json` — a
// PreToolUse write gate on apply_patch (every path in the patch) and Bash, a Stop completion
// gate — and the trust Codex needs before it runs them (see trust.ts).
import { join } from 'node:path';
import { fail, type Result } from '../../core/result.js';
import { recordOf, type AgentAdapter, type Capabilities } from '../adapter.js';
import { withTrustStep } from '../trust-step.js';
import { claudeShapedAdapter } from '../shaped/adapter.js';
import { RenderRecord } from '../shaped/render.js';
import { findCodexBinary } from './app-server.js';
import { APPLY_PATCH, parseCodexEvent } from './event.js';
import { codexOutput } from './output.js';
import { codexConfigFile, codexHome, CodexTrustRecord, trustCodexHooks, undoCodexTrust } from './trust.js';

const CAPABILITIES: Capabilities = {
  write_gate: {
    level: 'blocking',
    reason: 'PreToolUse hook on apply_patch: every path the patch adds, updates, deletes or moves to is checked; exit 2 refuses the whole patch and the model sees the reason',
  },
  shell_analysis: { level: 'blocking', reason: 'PreToolUse on Bash: parsed, classified, write targets checked (an early warning; the scope check is the net)' },
  completion_gate: { level: 'blocking', reason: 'Stop hook; exit 2 makes Codex continue the turn with the reason' },
  approvals: { level: 'blocking', reason: 'PreToolUse waits on the approval queue; exit 2 with the reason on a rejection' },
  halt: { level: 'none', reason: 'no run-ending hook output is known to be honoured; a halt verdict refuses the call instead' },
};

/** Codex's project hooks file, where the session's hooks go. */
function codexHooksFile(worktree: string): string {
  return join(worktree, '.codex', 'hooks.json');
}

const hooks = claudeShapedAdapter({
  name: 'codex',
  capabilities: CAPABILITIES,
  settingsFile: codexHooksFile,
  // Codex's own config can untrust or disable the hooks; the project's config.toml can too.
  settingsFiles: (worktree, env) => [codexHooksFile(worktree), join(worktree, '.codex', 'config.toml'), join(codexHome(env), 'hooks.json'), codexConfigFile(env)],
  dataPaths: (env) => ({ dirs: [codexHome(env)], files: [] }),
  // The one write tool, as a PreToolUse matcher.
  writeMatcher: APPLY_PATCH,
  parseEvent: parseCodexEvent,
  output: codexOutput,
  // Its PostToolUse carries a shell call's output but no exit status, and does not fire for a failed patch.
  reportsFailures: false,
});

/** The id of another Gatehouse session whose Codex hooks are in the rendered file, or null. */
function otherSessionHook(record: RenderRecord): string | null {
  const ours = new Set(record.entries.map((e) => e.command));
  const settings = JSON.parse(record.rendered) as { hooks?: Record<string, { hooks?: { command?: unknown }[] }[]> };
  const commands = Object.values(settings.hooks ?? {}).flatMap((groups) => groups.flatMap((g) => (g.hooks ?? []).map((h) => h.command)));
  for (const command of commands) {
    if (typeof command !== 'string' || ours.has(command)) continue;
    const m = / check --session (\S+) .*--agent codex\b/.exec(command);
    if (m) return m[1] ?? null;
  }
  return null;
}

/** The Codex CLI adapter. */
export const codexAdapter: AgentAdapter = withTrustStep(hooks, {
  kind: 'codex-trust',
  shape: CodexTrustRecord,
  async trust(ctx, rendered): Promise<Result<CodexTrustRecord>> {
    const env = ctx.env ?? process.env;
    const bin = findCodexBinary(env);
    if (bin === null) {
      return fail(
        'Codex runs project hooks only after they are trusted, and Gatehouse trusts them through Codex itself, but codex is not on PATH: install it (npm install -g @openai/codex) or set GATEHOUSE_CODEX_BIN to its absolute path, then run again',
      );
    }
    const first = rendered[0];
    if (first === undefined) return fail('Codex hooks were not rendered, so there is nothing to trust: this is a bug in Gatehouse, please report it');
    const checked = recordOf(RenderRecord, first, 'Codex');
    if (!checked.ok) return checked;
    const record = checked.value;
    const other = otherSessionHook(record);
    if (other !== null) {
      return fail(
        `${record.file} already holds the hooks of Gatehouse session ${other}: end it first (gatehouse session end ${other}). Codex trusts hooks by their position in the file, so removing one session's hooks would silently untrust the other's.`,
      );
    }
    return trustCodexHooks({ bin, project: ctx.worktree, hooksFile: record.file, commands: record.entries.map((e) => e.command), expected: record.entries.length, env });
  },
  undo: undoCodexTrust,
});
