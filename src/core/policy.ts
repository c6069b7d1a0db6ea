// The compiled session policy: one JSON file written at session start and read by every hook
// call. Declared once as a shape (shape.ts): the check it is read with and the types come from it.
import { AlwaysAllowRule, ProfileSpec } from './approvals/rule-schemas.js';
import type { Result } from './result.js';
import { SandboxSpec } from './sandbox-spec.js';
import { boolean, checkShape, dictionary, list, nullable, number, object, oneOf, optional, text, withDefault, type Infer } from './shape.js';

/** How an unexpected infrastructure failure inside a hook is treated. */
export const Posture = oneOf(['fail-open', 'fail-closed']);
export type Posture = Infer<typeof Posture>;

/** Seconds a command may run: a positive, finite number. */
const Seconds = number({ positive: true });

/**
 * An older Gatehouse wrote the timeout of these records as `timeout_secs` (`timeout_seconds` for
 * approvals): a policy.json of a session it started is still read, as `timeout_s`.
 */
const OLD_TIMEOUT = { timeout_secs: 'timeout_s' } as const;

/** A command whose success is evidence that the task is done (tests, lint, …). */
export const ProducerSpec = object({
  name: text(),
  kind: oneOf(['check']),
  /** argv, run without a shell. */
  command: list(text()),
  required: boolean(),
  timeout_s: Seconds,
});
export type ProducerSpec = Infer<typeof ProducerSpec>;

/** An operator's stop hook (`[[stop_hooks]]`): shell text run in the worktree. */
const StopHookPolicy = object({ name: text(), command: text(), timeout_s: Seconds }, { renamed: OLD_TIMEOUT });
type StopHookPolicy = Infer<typeof StopHookPolicy>;

/** A Stop hook from a Claude-Code-compatible hooks.json, loaded once at session start. */
const ExtensionHookPolicy = object({ name: text(), source: oneOf(['project', 'user']), file: text(), command: text(), timeout_s: Seconds, cwd: text() }, { renamed: OLD_TIMEOUT });
type ExtensionHookPolicy = Infer<typeof ExtensionHookPolicy>;

/** The session's objective and the command that proves it (fail-closed). */
const GoalPolicy = object({ text: text(), gate_command: text(), source: oneOf(['operator', 'model', 'untrusted']), timeout_s: Seconds }, { renamed: OLD_TIMEOUT });
type GoalPolicy = Infer<typeof GoalPolicy>;

const Count = number({ int: true, min: 0 });

/** The Stop-side chain's settings. */
export const TurnPolicy = object({
  /** The kill switch. */
  enabled: boolean(),
  /** Stage names in run order; null = the default order. */
  order: nullable(list(text())),
  repeat_threshold: Count,
  halt_threshold: Count,
  max_tool_calls: nullable(Count),
  failure_threshold: nullable(Count),
  goal: nullable(GoalPolicy),
  /** The PreToolUse hook sees every tool (the tool-loop watchdog and caps need it), not only writes. */
  watch_all_tools: boolean(),
});
export type TurnPolicy = Infer<typeof TurnPolicy>;

/** Opt-in human review of tool calls. */
const ApprovalsPolicy = object({ interactive: boolean(), timeout_s: Seconds, smart_auto_approve: boolean(), always_allow: list(AlwaysAllowRule) }, { renamed: { timeout_seconds: 'timeout_s' } });
type ApprovalsPolicy = Infer<typeof ApprovalsPolicy>;

/** The permission profile in force (fail-closed) and the custom profiles it may name. */
const PermissionsPolicy = object({ profile: nullable(text()), custom: dictionary(ProfileSpec) });
type PermissionsPolicy = Infer<typeof PermissionsPolicy>;

/** Version of the policy file format written by this build. */
export const POLICY_VERSION = 1 as const;

/** The session policy as stored in `<state>/sessions/<id>/policy.json`. */
export const Policy = object({
  v: oneOf([POLICY_VERSION]),
  session_id: text(),
  agent: text(),
  /** Real (symlink-free) absolute path of the worktree root. */
  worktree: text(),
  /** Real absolute path of the project's state directory. */
  state_dir: text(),
  /** Globs relative to the worktree: `**` crosses `/`, `*` does not, a trailing `/` is the whole folder. */
  allow: list(text()),
  /** Absolute real paths that are always refused while the session is active (files or folders). */
  protect: list(text()),
  /** Protected paths the way back may still write when they differ from the baseline (git control files). */
  restorable: list(text()),
  /** The home folder the protected paths were computed with: the shell analysis expands `~` and `$HOME` to it (absent in older policies). */
  home: optional(text()),
  producers: list(ProducerSpec),
  /** Run producers one after another instead of concurrently. */
  sequential: boolean(),
  /** Consecutive Stop blocks after which the turn is let through, marked unverified. */
  max_stop_blocks: Count,
  /** Bytes of producer output kept per producer. */
  output_cap_bytes: Count,
  posture: Posture,
  /** Worktree-relative files Gatehouse itself rendered: the in-session scope check ignores them. */
  scope_exclude: list(text()),
  /** Worktree-relative files the agent program writes for itself (its plugin runtime): every scope check ignores them (absent in older policies). */
  agent_runtime: withDefault(list(text()), []),
  /** Record allowed gate decisions in the audit log too (blocks are always recorded). */
  record_allows: boolean(),
  stop_hooks: list(StopHookPolicy),
  extension_hooks: list(ExtensionHookPolicy),
  turn: TurnPolicy,
  approvals: ApprovalsPolicy,
  permissions: PermissionsPolicy,
  /**
   * SHA-256 of baseline.json as written at start; null when there is no baseline (no allowlist),
   * and in a policy from before the digests, whose Stop then says the session cannot be trusted.
   */
  baseline_sha256: withDefault(nullable(text()), null),
  /** The agent runs inside an OS sandbox. False without one: then any process of the user can read the signing key. */
  sandboxed: boolean(),
  /** The sandbox the agent, its hooks and the required checks run in; null (or absent, before sandboxes) when unsandboxed. */
  sandbox: optional(nullable(SandboxSpec)),
  created_at: text(),
});
export type Policy = Infer<typeof Policy>;

/**
 * What a scope check of `policy` leaves out: the files Gatehouse rendered while they are still
 * in place, and the agent program's own runtime files always.
 */
export function scopeExclusions(policy: Pick<Policy, 'scope_exclude' | 'agent_runtime'>, hooksRendered: boolean): string[] {
  return [...(hooksRendered ? policy.scope_exclude : []), ...policy.agent_runtime];
}

/** A policy with no allow pattern and no required producer enforces nothing. */
export function isPassThrough(policy: Pick<Policy, 'allow' | 'producers'>): boolean {
  return policy.allow.length === 0 && !policy.producers.some((p) => p.required);
}

/**
 * Checks a policy read back from disk; the failure names the first key that is wrong.
 * @example checkPolicy(JSON.parse(text)) // fail('posture must be "fail-open" or "fail-closed", got "lenient"')
 */
export function checkPolicy(value: unknown): Result<Policy> {
  return checkShape(Policy, value);
}
