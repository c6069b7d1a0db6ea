// Runs hooks.json Stop hooks with Claude Code's contract (exit 2 or JSON decides) as a
// fail-open chain stage that lets the stop through after too many consecutive vetoes.
import type { TurnVerifier, VerifierOutcome } from '../../core/verifier-chain.js';
import type { StopHookContext } from './context.js';
import type { ExtensionStopHook } from './extension-config.js';
import { runShellCommand, type CommandRun } from './run-command.js';
import { joinReasons } from './shell.js';
import { isRecord } from '../../core/is-record.js';

export type { ExtensionStopHook } from './extension-config.js';

/** A per-session key-value store passed in; either method may return a promise. */
export interface SessionKeyValueStore {
  get(key: string): unknown;
  set(key: string, value: unknown): unknown;
}

/** What one extension hook said; an infrastructure failure is an allow with a note. */
export interface ExtensionHookResult {
  name: string;
  outcome: 'allow' | 'block' | 'halt';
  /** block/halt: the hook's reason (or a default naming it); allow: ''. */
  reason: string;
  /** Why the hook was let through without a verdict (spawn error, timeout, bad exit code or JSON). */
  note?: string;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  stdout: string;
  stderr: string;
  duration_ms: number;
}

/** Options for running extension hooks. */
export interface ExtensionRunOptions {
  /** Environment of the hooks (CLAUDE_PROJECT_DIR is added); defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Rewrites the argv before it runs: a sandboxed session runs it inside the sandbox. */
  wrap?: (argv: string[]) => string[];
}

/** Where the stage keeps its count of consecutive vetoes in the session store. */
export const CONSECUTIVE_VETOES_KEY = 'extension_stop_hooks.consecutive_vetoes';
/**
 * Vetoes in a row after which the stop goes through: room for the model to fix a real
 * problem, and below Claude Code's own cap of 8, so it is Gatehouse that records the release.
 */
export const MAX_CONSECUTIVE_VETOES = 5;
/** Claude Code's exit code for "blocking error": stderr is the reason. */
const EXIT_BLOCK = 2;

/** Claude Code's Stop payload, built from our context. */
function claudeStopPayload(ctx: StopHookContext, cwd: string, stopHookActive: boolean): string {
  return JSON.stringify({ session_id: ctx.session_id, hook_event_name: 'Stop', stop_hook_active: stopHookActive, last_assistant_message: ctx.final_text, cwd });
}

/** A string field, trimmed, or '' when absent or not a string. */
function text(obj: Record<string, unknown>, key: string): string {
  const v = obj[key];
  return typeof v === 'string' ? v.trim() : '';
}

type Interpretation = Pick<ExtensionHookResult, 'outcome' | 'reason' | 'note'>;

/** Reads a finished run the way Claude Code reads a Stop hook's exit code and stdout. */
function interpretExtensionRun(name: string, run: CommandRun): Interpretation {
  const pass = (note: string): Interpretation => ({ outcome: 'allow', reason: '', note: `extension stop hook ${name} ${note}; let the stop through` });
  if (run.spawn_error !== null) return pass(`could not start (${run.spawn_error})`);
  if (run.cancelled) return pass('was cancelled');
  if (run.timed_out) return pass('timed out');
  if (run.signal !== null) return pass(`was killed by ${run.signal}`);
  const blocked = `extension stop hook ${name} blocked the stop`;
  if (run.exit_code === EXIT_BLOCK) return { outcome: 'block', reason: run.stderr.trim() || blocked };
  if (run.exit_code !== 0) return pass(`exited with code ${run.exit_code}, which is not a verdict (0 or 2)`);
  // As in Claude Code, stdout is JSON only when it starts with '{'; other text is ignored.
  const out = run.stdout.trim();
  if (!out.startsWith('{')) return { outcome: 'allow', reason: '' };
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch (err) {
    return pass(`printed JSON that does not parse (${(err as Error).message}${run.stdout_truncated ? ', output was truncated' : ''})`);
  }
  if (!isRecord(json)) return pass('printed JSON that is not an object');
  // `continue: false` ends the whole run and wins over any decision.
  if (json.continue === false) return { outcome: 'halt', reason: text(json, 'stopReason') || `extension stop hook ${name} halted the run` };
  if (json.decision === 'block') return { outcome: 'block', reason: text(json, 'reason') || blocked };
  const specific = json.hookSpecificOutput;
  if (isRecord(specific) && specific.decision === 'block') return { outcome: 'block', reason: text(specific, 'reason') || text(json, 'reason') || blocked };
  return { outcome: 'allow', reason: '' };
}

/**
 * Runs one extension Stop hook with Claude Code's payload on stdin; never throws.
 * @example const r = await runExtensionHook(hook, ctx, false, {signal})
 */
export async function runExtensionHook(hook: ExtensionStopHook, ctx: StopHookContext, stopHookActive: boolean, opts: ExtensionRunOptions = {}): Promise<ExtensionHookResult> {
  const run = await runShellCommand({
    command: hook.command,
    stdin: claudeStopPayload(ctx, hook.cwd, stopHookActive),
    timeoutMs: hook.timeout_s * 1000,
    cwd: hook.cwd,
    // Hooks written for Claude Code find the project through this variable.
    env: { ...(opts.env ?? process.env), CLAUDE_PROJECT_DIR: hook.cwd },
    signal: opts.signal,
    wrap: opts.wrap,
  });
  const res: ExtensionHookResult = {
    name: hook.name,
    ...interpretExtensionRun(hook.name, run),
    exit_code: run.exit_code,
    signal: run.signal,
    timed_out: run.timed_out,
    stdout: run.stdout,
    stderr: run.stderr,
    duration_ms: run.duration_ms,
  };
  if (res.note === undefined) delete res.note;
  return res;
}

/** A stored count, or 0 for anything that is not one. */
function countOf(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 0;
}

/**
 * The chain stage `extension_stop_hooks`, fail-open. All hooks run at once; halt outranks
 * block. After {@link MAX_CONSECUTIVE_VETOES} vetoes in a row the next stop goes through
 * (noted in `detail`), so a broken hook cannot wedge the loop; any allow resets the count.
 * @example new VerifierChain([extensionStopHooksVerifier(loaded.hooks, sessionState), …])
 */
export function extensionStopHooksVerifier(hooks: readonly ExtensionStopHook[], store: SessionKeyValueStore, opts: Omit<ExtensionRunOptions, 'signal'> = {}): TurnVerifier<StopHookContext> {
  return {
    name: 'extension_stop_hooks',
    posture: 'fail-open',
    async verify(ctx, signal): Promise<VerifierOutcome> {
      if (hooks.length === 0) return { kind: 'continue', detail: { results: [], notes: [], skipped: 'no extension stop hooks' } };
      const prior = countOf(await store.get(CONSECUTIVE_VETOES_KEY));
      const results = await Promise.all(hooks.map((h) => runExtensionHook(h, ctx, prior > 0, { ...opts, signal })));
      const notes = results.flatMap((r) => (r.note === undefined ? [] : [r.note]));
      const detail = { results, notes, consecutive_vetoes: prior };
      const halts = results.filter((r) => r.outcome === 'halt');
      if (halts.length > 0) {
        // The run ends here; the next session starts with a clean count.
        await store.set(CONSECUTIVE_VETOES_KEY, 0);
        return { kind: 'halt', reason: joinReasons(halts.map((r) => ({ name: r.name, text: r.reason }))), detail };
      }
      const blocks = results.filter((r) => r.outcome === 'block');
      if (blocks.length === 0) {
        await store.set(CONSECUTIVE_VETOES_KEY, 0);
        return { kind: 'continue', detail };
      }
      if (prior >= MAX_CONSECUTIVE_VETOES) {
        await store.set(CONSECUTIVE_VETOES_KEY, 0);
        const released = `extension stop hooks vetoed ${prior} stops in a row; let this stop through so a broken hook cannot wedge the loop`;
        return { kind: 'continue', detail: { ...detail, notes: [...notes, released], released } };
      }
      await store.set(CONSECUTIVE_VETOES_KEY, prior + 1);
      return { kind: 'block', reason: joinReasons(blocks.map((r) => ({ name: r.name, text: r.reason }))), detail: { ...detail, consecutive_vetoes: prior + 1 } };
    },
  };
}
