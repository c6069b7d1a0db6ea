// Operator-configured `[[stop_hooks]]`: shell commands that judge a stop by exit code
// (0 allow, 2 block, 3 halt, anything else an error), run in parallel and combined.
import type { TurnVerifier, VerifierOutcome, VerifierPosture } from '../../core/verifier-chain.js';
import { stopHookPayload, type StopHookContext } from './context.js';
import { runShellCommand, type CommandRun } from './run-command.js';

/**
 * One `[[stop_hooks]]` entry. `command` is the operator's own shell text from their
 * config file and is trusted as such: it runs as `/bin/sh -c` in the worktree, unfiltered.
 */
export interface StopHookSpec {
  name: string;
  command: string;
  /** Seconds before the hook's process group is killed; default {@link DEFAULT_STOP_HOOK_TIMEOUT_SECS}. */
  timeout_s?: number;
}

/** Where and how to run stop hooks. */
export interface StopHookRunOptions {
  /** The worktree. */
  cwd: string;
  /** Environment of the hooks; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** Aborting kills every running hook's process group (outcome `error`). */
  signal?: AbortSignal;
  /** Rewrites the argv before it runs: a sandboxed session runs it inside the sandbox. */
  wrap?: (argv: string[]) => string[];
}

/** What one hook said about the stop. */
type StopHookOutcome = 'allow' | 'block' | 'halt' | 'error';

/** The outcome of one stop hook run (the command run's streams and timings, plus the verdict); never thrown. */
export type StopHookResult = Omit<CommandRun, 'cancelled' | 'spawn_error'> & {
  name: string;
  outcome: StopHookOutcome;
  /** block/halt: stdout trimmed, or a default naming the hook; error: what went wrong; allow: ''. */
  reason: string;
  /** Present only for outcome `error`. */
  error?: string;
};

/** A check that should gate every stop must be quick; a hook that needs longer says so. */
const DEFAULT_STOP_HOOK_TIMEOUT_SECS = 30;
/** Exit codes with a meaning; every other code is an error (as in Claude Code, 1 is a crash, not a verdict). */
const EXIT_ALLOW = 0;
const EXIT_BLOCK = 2;
const EXIT_HALT = 3;
/** Characters of an erroring hook's output quoted in a fail-closed reason: the gist, not the whole log. */
const ERROR_TAIL_CHARS = 1000;

/** Why a finished run counts as an error, or null when its exit code is a verdict. */
function errorOf(run: CommandRun, timeoutSecs: number): string | null {
  if (run.spawn_error !== null) return `could not start: ${run.spawn_error}`;
  if (run.cancelled) return 'was cancelled before it finished';
  if (run.timed_out) return `timed out after ${timeoutSecs} s`;
  if (run.signal !== null) return `was killed by ${run.signal}`;
  const code = run.exit_code;
  if (code === EXIT_ALLOW || code === EXIT_BLOCK || code === EXIT_HALT) return null;
  const hint = code === 127 ? ' (command not found)' : code === 126 ? ' (not executable)' : '';
  return `exited with code ${code}${hint}; only 0 (allow), 2 (block) and 3 (halt) are verdicts`;
}

/** Turns a finished command run into a hook result. */
function toStopHookResult(name: string, run: CommandRun, timeoutSecs: number): StopHookResult {
  const error = errorOf(run, timeoutSecs);
  const told = run.stdout.trim();
  const outcome: StopHookOutcome = error !== null ? 'error' : run.exit_code === EXIT_BLOCK ? 'block' : run.exit_code === EXIT_HALT ? 'halt' : 'allow';
  const reason = outcome === 'block' ? told || `stop hook ${name} blocked the stop` : outcome === 'halt' ? told || `stop hook ${name} halted the run` : (error ?? '');
  const { cancelled: _cancelled, spawn_error: _spawnError, ...streams } = run;
  const res: StopHookResult = { name, outcome, reason, ...streams };
  if (error !== null) res.error = error;
  return res;
}

/** A result for a hook that was never started, e.g. refused before it could run. */
export function notRunResult(name: string, error: string): StopHookResult {
  return {
    name,
    outcome: 'error',
    exit_code: null,
    signal: null,
    timed_out: false,
    reason: error,
    error,
    stdout: '',
    stderr: '',
    stdout_truncated: false,
    stderr_truncated: false,
    stdout_bytes: 0,
    stderr_bytes: 0,
    duration_ms: 0,
  };
}

/**
 * Runs one stop hook with the context JSON on stdin; never throws.
 * @example const r = await runStopHook({name: 'lint', command: 'npm run lint'}, ctx, {cwd: worktree})
 */
export async function runStopHook(hook: StopHookSpec, ctx: StopHookContext, opts: StopHookRunOptions): Promise<StopHookResult> {
  const timeoutSecs = hook.timeout_s ?? DEFAULT_STOP_HOOK_TIMEOUT_SECS;
  // `sh -c ''` exits 0: an empty command would silently allow every stop.
  if (hook.command.trim() === '') return notRunResult(hook.name, 'has an empty command');
  const run = await runShellCommand({
    command: hook.command,
    stdin: stopHookPayload(ctx),
    timeoutMs: timeoutSecs * 1000,
    cwd: opts.cwd,
    env: opts.env,
    signal: opts.signal,
    wrap: opts.wrap,
  });
  return toStopHookResult(hook.name, run, timeoutSecs);
}

/**
 * Runs every hook at once; results are in hook order.
 * @example const results = await runStopHooks(config.stop_hooks, ctx, {cwd: worktree, signal})
 */
export function runStopHooks(hooks: readonly StopHookSpec[], ctx: StopHookContext, opts: StopHookRunOptions): Promise<StopHookResult[]> {
  return Promise.all(hooks.map((hook) => runStopHook(hook, ctx, opts)));
}

/** What {@link combineStopHooks} puts in `detail`. */
interface StopHooksDetail {
  results: StopHookResult[];
  /** Hooks that could not give a verdict; in fail-open mode they were let through. */
  errors: { name: string; error: string }[];
  skipped?: string;
}

/** The end of an erroring hook's output, for a fail-closed reason. */
function outputTail(r: StopHookResult): string {
  const text = (r.stderr.trim() || r.stdout.trim()).slice(-ERROR_TAIL_CHARS);
  return text ? `\nLast output:\n${text}` : '';
}

/** One reason from several, each tagged with its hook; a single one stays as the hook wrote it. */
export function joinReasons(parts: { name: string; text: string }[]): string {
  if (parts.length === 1) return (parts[0] as { text: string }).text;
  return parts.map((p) => `[${p.name}] ${p.text}`).join('\n\n');
}

/**
 * One verdict from all hooks: halt outranks block outranks allow. An error is let
 * through in `fail-open` mode (and listed in `detail.errors`) and blocks in `fail-closed`.
 * @example return combineStopHooks(results, 'fail-open')
 */
export function combineStopHooks(results: StopHookResult[], mode: VerifierPosture): VerifierOutcome {
  const errors = results.filter((r) => r.outcome === 'error').map((r) => ({ name: r.name, error: r.error ?? r.reason }));
  if (results.length === 0) return { kind: 'continue', detail: { results, errors, skipped: 'no stop hooks configured' } satisfies StopHooksDetail };
  const detail: StopHooksDetail = { results, errors };
  const halts = results.filter((r) => r.outcome === 'halt');
  if (halts.length > 0) return { kind: 'halt', reason: joinReasons(halts.map((r) => ({ name: r.name, text: r.reason }))), detail };
  const vetoes = results
    .filter((r) => r.outcome === 'block' || (r.outcome === 'error' && mode === 'fail-closed'))
    .map((r) => ({
      name: r.name,
      text:
        r.outcome === 'block'
          ? r.reason
          : `completion cannot be claimed when the check could not run: stop hook ${r.name} ${r.error ?? r.reason}.${outputTail(r)}\nFix what stops it from running, then finish again.`,
    }));
  if (vetoes.length > 0) return { kind: 'block', reason: joinReasons(vetoes), detail };
  return { kind: 'continue', detail };
}

/**
 * The chain stage for `[[stop_hooks]]`, fail-open: a hook that cannot run is logged, not a veto.
 * @example new VerifierChain([shellStopHooksVerifier(config.stop_hooks, {cwd: worktree}), …])
 */
export function shellStopHooksVerifier(hooks: readonly StopHookSpec[], opts: Omit<StopHookRunOptions, 'signal'>): TurnVerifier<StopHookContext> {
  return {
    name: 'shell_stop_hooks',
    posture: 'fail-open',
    async verify(ctx, signal) {
      return combineStopHooks(await runStopHooks(hooks, ctx, { ...opts, signal }), 'fail-open');
    },
  };
}
