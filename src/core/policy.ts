// The compiled session policy: one JSON file written at session start and read by
// every hook call. Plain types only; validation happens where the file is read.
import type { AlwaysAllowRule } from './approvals/always-allow.js';
import type { ProfileSpec } from './approvals/profiles.js';
import type { SandboxSpec } from './sandbox.js';

/** How an unexpected infrastructure failure inside a hook is treated. */
export type Posture = 'fail-open' | 'fail-closed';

/** A command whose success is evidence that the task is done (tests, lint, …). */
export interface ProducerSpec {
  name: string;
  kind: 'check';
  /** argv, run without a shell. */
  command: string[];
  required: boolean;
  timeout_s: number;
}

/** An operator's stop hook (`[[stop_hooks]]`): shell text run in the worktree. */
export interface StopHookPolicy {
  name: string;
  command: string;
  timeout_secs: number;
}

/** A Stop hook from a Claude-Code-compatible hooks.json, loaded once at session start. */
export interface ExtensionHookPolicy {
  name: string;
  source: 'project' | 'user';
  file: string;
  command: string;
  timeout_secs: number;
  cwd: string;
}

/** The session's objective and the command that proves it (fail-closed). */
export interface GoalPolicy {
  text: string;
  gate_command: string;
  source: 'operator' | 'model' | 'untrusted';
  timeout_secs: number;
}

/** The Stop-side chain's settings. */
export interface TurnPolicy {
  /** The kill switch. */
  enabled: boolean;
  /** Stage names in run order; null = the default order. */
  order: string[] | null;
  repeat_threshold: number;
  halt_threshold: number;
  max_tool_calls: number | null;
  failure_threshold: number | null;
  goal: GoalPolicy | null;
  /** The PreToolUse hook sees every tool (the tool-loop watchdog and caps need it), not only writes. */
  watch_all_tools: boolean;
}

/** Opt-in human review of tool calls. */
export interface ApprovalsPolicy {
  interactive: boolean;
  timeout_seconds: number;
  smart_auto_approve: boolean;
  always_allow: AlwaysAllowRule[];
}

/** The permission profile in force (fail-closed) and the custom profiles it may name. */
export interface PermissionsPolicy {
  profile: string | null;
  custom: Record<string, ProfileSpec>;
}

/** Version of the policy file format written by this build. */
export const POLICY_VERSION = 1;

/** The session policy as stored in `<state>/sessions/<id>/policy.json`. */
export interface Policy {
  v: typeof POLICY_VERSION;
  session_id: string;
  agent: string;
  /** Real (symlink-free) absolute path of the worktree root. */
  worktree: string;
  /** Real absolute path of the project's state directory. */
  state_dir: string;
  /** Globs relative to the worktree: `**` crosses `/`, `*` does not, a trailing `/` is the whole folder. */
  allow: string[];
  /** Absolute real paths that are always refused while the session is active (files or folders). */
  protect: string[];
  /** Protected paths the way back may still write when they differ from the baseline (git control files). */
  restorable: string[];
  /** The home folder the protected paths were computed with: the shell analysis expands `~` and `$HOME` to it (absent in older policies). */
  home?: string;
  producers: ProducerSpec[];
  /** Run producers one after another instead of concurrently. */
  sequential: boolean;
  /** Consecutive Stop blocks after which the turn is let through, marked unverified. */
  max_stop_blocks: number;
  /** Bytes of producer output kept per producer. */
  output_cap_bytes: number;
  posture: Posture;
  /** Worktree-relative files Gatehouse itself rendered: the in-session scope check ignores them. */
  scope_exclude: string[];
  /** Record allowed gate decisions in the audit log too (blocks are always recorded). */
  record_allows: boolean;
  stop_hooks: StopHookPolicy[];
  extension_hooks: ExtensionHookPolicy[];
  turn: TurnPolicy;
  approvals: ApprovalsPolicy;
  permissions: PermissionsPolicy;
  /** SHA-256 of baseline.json as written at start; null when there is no baseline (no allowlist). */
  baseline_sha256: string | null;
  /** The agent runs inside an OS sandbox. False without one: then any process of the user can read the signing key. */
  sandboxed: boolean;
  /** The sandbox the agent, its hooks and the required checks run in; null (or absent, before sandboxes) when unsandboxed. */
  sandbox?: SandboxSpec | null;
  created_at: string;
}

/** A policy with no allow pattern and no required producer enforces nothing. */
export function isPassThrough(policy: Pick<Policy, 'allow' | 'producers'>): boolean {
  return policy.allow.length === 0 && !policy.producers.some((p) => p.required);
}
