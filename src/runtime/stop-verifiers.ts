// The two built-in completion verifiers: the task's required checks (evidence
// producers, fail-closed) and the scope check (every changed file inside the allowlist).
import { sandboxWrap } from '../core/sandbox.js';
import { framed, shownPath } from '../core/display.js';
import { dirname, resolve } from 'node:path';
import type { Policy } from '../core/policy.js';
import type { TurnVerifier, VerifierOutcome } from '../core/verifier-chain.js';
import { failureTail, runProducers } from './producers.js';
import type { ScopeCache } from './scope-cache.js';
import { allowMatcher, changedSince, controlChangeHint, ScopeBudgetError, type Baseline, type BaselineTexts, type Change } from './scope-baseline.js';

/** What the completion verifiers need to know about the stop. */
export interface StopContext {
  policy: Policy;
  /** The session's baseline, read and verified before anything of the agent's ran; null without an allowlist. */
  baseline: Baseline | null;
  /** Worktree-relative paths Gatehouse itself changed (rendered settings), never reported. */
  exclude: string[];
  /** Seconds the scope check may take (in-session, inside the Stop hook's budget); null: as long as it needs. */
  scopeBudgetS: number | null;
  /** What this process kept of the session's earlier checks (in-session only; the end-of-session check compares from scratch). */
  scopeCache?: ScopeCache;
  /** The texts the stored baseline was kept without (`texts_sha256`), read only for a refusal's hints; null when they cannot be trusted. */
  texts?: () => BaselineTexts | null;
}

/**
 * Seconds the in-session scope check may take before it gives up and refuses the stop. A
 * walk of 100,000 files takes about a second here; this leaves room for hashing the changed
 * ones while staying well inside the margin the Stop hook's timeout keeps for it.
 */
export const SCOPE_BUDGET_S = 30;

/** How many offending paths a block reason lists before summarising. */
const MAX_LISTED_PATHS = 20;
/** Characters of each failing producer's output tail put into the block reason. */
const REASON_TAIL_CHARS = 1500;
/** Lines of that tail a person's summary keeps: enough to see the failure, not a whole stack trace (the log has it all). */
const SUMMARY_TAIL_LINES = 5;

/** The last `n` non-blank lines of `text`, with a mark when lines were left out. */
function lastLines(text: string, n: number): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.length <= n ? lines.join('\n') : ['…', ...lines.slice(-n)].join('\n');
}

/** Runs every producer; blocks while a required one fails, with the tail of its output. */
export const producersVerifier: TurnVerifier<StopContext> = {
  name: 'evidence_producers',
  posture: 'fail-closed',
  completion: true,
  async verify(ctx, signal): Promise<VerifierOutcome> {
    const { policy } = ctx;
    if (policy.producers.length === 0) return { kind: 'continue' };
    const results = await runProducers(policy.producers, {
      cwd: policy.worktree,
      sequential: policy.sequential,
      outputCapBytes: policy.output_cap_bytes,
      signal,
      wrap: sandboxWrap(policy),
    });
    const failed = results.filter((r) => r.required && r.status !== 'passed');
    if (failed.length === 0) return { kind: 'continue', detail: results };
    const found = failed.map((r) => {
      const spec = policy.producers.find((p) => p.name === r.name);
      const how = r.status === 'timed_out' ? `timed out after ${spec?.timeout_s ?? '?'} s` : r.status === 'spawn_error' ? 'could not start' : `exited with ${r.exit_code ?? r.signal}`;
      return { what: `the required check "${r.name}" (${spec?.command.join(' ')}) ${how}`, tail: failureTail(r, REASON_TAIL_CHARS) };
    });
    const parts = found.map((f) => `${capitalize(f.what)}.${f.tail ? `\nLast output:\n${f.tail}` : ''}`);
    const reason = `Gatehouse will not let this task finish yet: ${failed.length === 1 ? 'a required check fails' : `${failed.length} required checks fail`}. ${parts.join('\n\n')}\n\nFix the cause in the code (do not weaken or skip the check), run the check yourself to confirm it passes, then finish.`;
    // The output is the agent's code talking: framed, so none of its lines can pass for a verdict line.
    const summary = found.map((f) => `${f.what}${f.tail ? `; its last output:\n${framed(lastLines(f.tail, SUMMARY_TAIL_LINES), OUTPUT_FRAME)}` : ''}`).join('\n');
    return { kind: 'block', reason, summary, detail: results };
  },
};

/** Blocks while any file changed since the session's baseline lies outside the allowlist. */
export const scopeVerifier: TurnVerifier<StopContext> = {
  name: 'scope_check',
  posture: 'fail-closed',
  completion: true,
  async verify(ctx): Promise<VerifierOutcome> {
    const { policy } = ctx;
    if (policy.allow.length === 0) return { kind: 'continue' };
    if (ctx.baseline === null) throw new Error('the scope check needs the session baseline');
    const baseline = ctx.baseline;
    let changes: Change[];
    try {
      const deadline = ctx.scopeBudgetS !== null ? { deadline: Date.now() + ctx.scopeBudgetS * 1000 } : {};
      changes = await changedSince(policy.worktree, baseline, { exclude: ctx.exclude, allow: policy.allow, ...deadline, ...(ctx.scopeCache ? { cache: ctx.scopeCache } : {}) });
    } catch (err) {
      if (!(err instanceof ScopeBudgetError)) throw err;
      const reason = `Gatehouse will not let this task finish yet: the scope check could not compare the worktree with its baseline within ${ctx.scopeBudgetS} s, so it is not known whether files outside the task's allowed paths (${policy.allow.join(', ')}) changed. Delete large files or folders you created outside the allowed paths, keep your work inside them, then finish again; the end-of-session check compares everything in full either way.`;
      const summary = `the scope check could not compare the worktree with its baseline within its in-session budget of ${ctx.scopeBudgetS} s; the end-of-session check compares everything in full`;
      return { kind: 'block', reason, summary, detail: { budget_exceeded: true, error: err.message } };
    }
    const allowed = allowMatcher(policy.allow);
    const outside = changes.filter((c) => !allowed(c.path));
    if (outside.length === 0) return { kind: 'continue', detail: { changed: changes } };
    // Undefined: the baseline holds its texts itself; null: they were stored apart and cannot be read.
    const texts = baseline.texts_sha256 === undefined ? undefined : (ctx.texts?.() ?? null);
    const listed = outside.slice(0, MAX_LISTED_PATHS).map((c) => {
      const hint = controlChangeHint(baseline, c, texts);
      // A path outside the worktree (`../…`: user config, a git dir elsewhere) is shown absolute.
      const shown = shownPath(c.path.startsWith('../') ? resolve(policy.worktree, c.path) : c.path);
      return `  ${c.change}: ${shown} (${undoText(c, baseline.git?.head ?? null)})${hint === null ? '' : `\n${framed(hint, '    ')}`}`;
    });
    if (outside.length > MAX_LISTED_PATHS) listed.push(`  …and ${outside.length - MAX_LISTED_PATHS} more`);
    const one = outside.length === 1;
    const what = `${one ? 'a file outside' : `${outside.length} files outside`} the task's allowed paths (${policy.allow.join(', ')}) changed during this session:\n${listed.join('\n')}`;
    const reason = `Gatehouse will not let this task finish: ${what}\nPut ${one ? 'it' : 'them'} back as said above, keep your work inside the allowed paths, then finish.`;
    return { kind: 'block', reason, summary: what, detail: { changed: changes, outside } };
  },
};

/**
 * The `commondir` of a linked worktree's admin folder (`.git/worktrees/<name>/`), new when `git
 * worktree add` made it: deleting that file alone leaves git a broken worktree entry, so the hint
 * names the admin folder. Not `git worktree remove`: it deletes the folder named by the admin
 * folder's `gitdir`, a file the agent writes, which could name any folder of the user's. Any other
 * new file there (a planted `config.worktree` in a worktree of the user's) is just deleted.
 */
const NEW_WORKTREE_FILE = /(?:^|\/)\.git\/worktrees\/[^/]+\/commondir$/;

/** How to bring one changed path back to its baseline, in words the agent can act on. */
function undoText(c: Change, head: string | null): string {
  if (c.undo === 'delete' && NEW_WORKTREE_FILE.test(c.path))
    return `a linked worktree added in this session: delete its admin folder (\`rm -rf ${shellQuote(dirname(c.path))}\`), and the worktree's own folder if you made it for this task`;
  if (c.undo === 'delete') return 'created in this session: delete it';
  if (c.undo === 'checkout') {
    const p = shellQuote(c.path);
    const staged = head ? `; if you staged or committed the change, \`git checkout ${head} -- ${p}\` (the commit this session started from)` : '';
    return `restore it with \`git checkout -- ${p}\`${staged}`;
  }
  return c.change === 'deleted' ? 'write it back with its content as it was at the start' : 'write back its content as it was at the start';
}

function shellQuote(path: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a check's output lines are shown behind in a person's summary. */
const OUTPUT_FRAME = '    │ ';
