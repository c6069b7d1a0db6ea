// The zod schema of `gatehouse.yaml` / `gatehouse.toml` (v1), shared by both formats,
// and the wording of its errors: each issue becomes "what is expected, what was found".
import { z } from 'zod';
import { splitCommand } from '../core/argv.js';
import { closestKey } from '../core/closest-key.js';
import type { ProducerSpec } from '../core/policy.js';
import { parseStoreSetting, type StoreSpec } from './store/store-setting.js';

/** Producer timeout when none is given: long enough for a typical test suite. */
const DEFAULT_TIMEOUT_S = 300;
/** Longest producer timeout: one day; anything longer is a mistake, not a test run. */
const MAX_TIMEOUT_S = 86_400;
/** Consecutive Stop blocks before the turn is let through, so a failing check cannot loop forever. */
const DEFAULT_MAX_STOP_BLOCKS = 8;
/** Upper bound for `max_stop_blocks`; more than this only burns tokens. */
const MAX_STOP_BLOCKS_LIMIT = 100;
/** Producer names appear in verdicts, audit events and file names, so they are kept short and plain. */
const PRODUCER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A glob relative to the worktree: not empty, not absolute, no `..` segment. */
const RelativeGlob = z.string({ error: 'expected a relative path or glob (a string)' }).superRefine((value, ctx) => {
  const problem = relativeGlobProblem(value);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: `${problem}, got ${JSON.stringify(value)}` });
});

const GlobList = z.array(RelativeGlob, { error: 'expected a list of relative paths or globs' });

const Command = z.union([z.string(), z.array(z.string())], { error: 'expected a command string or a list of strings (argv)' }).transform((value, ctx): string[] => {
  const argv = typeof value === 'string' ? splitCommand(value) : { ok: true as const, value };
  if (!argv.ok) {
    ctx.addIssue({ code: 'custom', message: argv.reason });
    return z.NEVER;
  }
  if (argv.value.length === 0 || argv.value[0] === '') {
    ctx.addIssue({ code: 'custom', message: 'expected a command whose first word is the program to run' });
    return z.NEVER;
  }
  return argv.value;
});

/** One evidence producer as written in the config file. */
const ProducerShape = {
  name: z.string({ error: 'expected a producer name (a string)' }).regex(PRODUCER_NAME, { error: 'expected a name of 1 to 64 letters, digits, `_`, `.` or `-`' }),
  command: Command,
  required: z.boolean({ error: 'expected true or false' }).default(true),
  timeout_s: z
    .int({ error: `expected a whole number of seconds from 1 to ${MAX_TIMEOUT_S}` })
    .min(1, { error: `expected a whole number of seconds from 1 to ${MAX_TIMEOUT_S}` })
    .max(MAX_TIMEOUT_S, { error: `expected a whole number of seconds from 1 to ${MAX_TIMEOUT_S}` })
    .default(DEFAULT_TIMEOUT_S),
};

const Producer = z
  .strictObject(ProducerShape, { error: 'expected a producer: a mapping with `name` and `command`' })
  .transform((p): ProducerSpec => ({ name: p.name, kind: 'check', command: p.command, required: p.required, timeout_s: p.timeout_s }));

const Producers = z.array(Producer, { error: 'expected a list of producers' }).superRefine((list, ctx) => {
  const seen = new Map<string, number>();
  list.forEach((p, i) => {
    const first = seen.get(p.name);
    if (first === undefined) seen.set(p.name, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `expected a unique name; producers[${first}] is already called "${p.name}"` });
  });
});

const GateShape = {
  allow: GlobList.default([]),
  protect: GlobList.default([]),
  producers: Producers.default([]),
  sequential: z.boolean({ error: 'expected true or false' }).default(false),
  max_stop_blocks: z
    .int({ error: `expected a whole number from 1 to ${MAX_STOP_BLOCKS_LIMIT}` })
    .min(1, { error: `expected a whole number from 1 to ${MAX_STOP_BLOCKS_LIMIT}` })
    .max(MAX_STOP_BLOCKS_LIMIT, { error: `expected a whole number from 1 to ${MAX_STOP_BLOCKS_LIMIT}` })
    .default(DEFAULT_MAX_STOP_BLOCKS),
  posture: z.enum(['fail-open', 'fail-closed'], { error: 'expected "fail-open" or "fail-closed"' }).default('fail-open'),
  record_allows: z.boolean({ error: 'expected true or false' }).default(false),
};

/** Longest a stop hook may run: stop hooks gate every turn, so minutes are already generous. */
const MAX_STOP_HOOK_TIMEOUT_S = 3_600;

const SecondsUpTo = (max: number) =>
  z
    .int({ error: `expected a whole number of seconds from 1 to ${max}` })
    .min(1, { error: `expected a whole number of seconds from 1 to ${max}` })
    .max(max, { error: `expected a whole number of seconds from 1 to ${max}` });

/** Older spellings of `timeout_s`, still read (with a warning at load): the key each section once used. */
export const OLD_TIMEOUT_KEYS = { stop_hook: 'timeout_secs', goal: 'timeout_secs', approvals: 'timeout_seconds' } as const;

/** `timeout_s` or its older spelling, never both; the value, which the parsed config keeps as `timeout_s`. */
function oneTimeout<T extends { timeout_s?: number | undefined }>(old: string, fallback: number) {
  return (v: T & Record<string, unknown>, ctx: z.RefinementCtx): number => {
    if (v.timeout_s !== undefined && v[old] !== undefined) {
      ctx.addIssue({ code: 'custom', path: [old], message: `give \`timeout_s\` only (\`${old}\` is its older spelling), not both` });
      return z.NEVER;
    }
    return v.timeout_s ?? (v[old] as number | undefined) ?? fallback;
  };
}

/** One operator stop hook (`[[stop_hooks]]`): a shell command that sees the turn and may veto the stop. */
const StopHookShape = {
  name: z.string({ error: 'expected a hook name (a string)' }).regex(PRODUCER_NAME, { error: 'expected a name of 1 to 64 letters, digits, `_`, `.` or `-`' }),
  command: z.string({ error: 'expected the shell command to run (a string)' }).min(1, { error: 'expected a non-empty command' }),
  timeout_s: SecondsUpTo(MAX_STOP_HOOK_TIMEOUT_S).optional(),
  timeout_secs: SecondsUpTo(MAX_STOP_HOOK_TIMEOUT_S).optional(),
};
const stopHookTimeout = oneTimeout(OLD_TIMEOUT_KEYS.stop_hook, 30);
const StopHooks = z.array(
  z
    .strictObject(StopHookShape, { error: 'expected a stop hook: a mapping with `name` and `command`' })
    .transform((h, ctx) => ({ name: h.name, command: h.command, timeout_s: stopHookTimeout(h, ctx) })),
  { error: 'expected a list of stop hooks' },
);

const OptionalCount = (min: number, max: number) =>
  z
    .int({ error: `expected a whole number from ${min} to ${max}, or null` })
    .min(min, { error: `expected a whole number from ${min} to ${max}, or null` })
    .max(max, { error: `expected a whole number from ${min} to ${max}, or null` })
    .nullable()
    .default(null);

/** The session's objective and the command that proves it reached (fail-closed). */
const GoalShape = {
  objective: z.string({ error: 'expected the objective (a string)' }).min(1, { error: 'expected a non-empty objective' }),
  gate_command: z.string({ error: 'expected the gate command (a string)' }).min(1, { error: 'expected a non-empty gate command' }),
  timeout_s: SecondsUpTo(MAX_TIMEOUT_S).optional(),
  timeout_secs: SecondsUpTo(MAX_TIMEOUT_S).optional(),
};
const goalTimeout = oneTimeout(OLD_TIMEOUT_KEYS.goal, DEFAULT_TIMEOUT_S);

/** The `verifiers` section: the Stop-side chain's kill switch, order and thresholds. */
const VerifiersShape = {
  enabled: z.boolean({ error: 'expected true or false' }).default(true),
  order: z.array(z.string(), { error: 'expected a list of verifier names' }).optional(),
  repeat_threshold: OptionalCount(2, 50),
  halt_threshold: OptionalCount(3, 200),
  max_tool_calls: OptionalCount(1, 100_000),
  failure_threshold: OptionalCount(1, 100),
  goal: z
    .strictObject(GoalShape, { error: 'expected `goal` to be a mapping with `objective` and `gate_command`' })
    .transform((g, ctx) => ({ objective: g.objective, gate_command: g.gate_command, timeout_s: goalTimeout(g, ctx) }))
    .optional(),
};

/** Default approval TTL: long enough for a person to notice and answer, short enough that nothing waits forever. */
const DEFAULT_APPROVAL_TIMEOUT_S = 600;
/** Longest approval TTL: a day; Claude Code's hook timeout is derived from it. */
const MAX_APPROVAL_TIMEOUT_S = 86_400;

const TokenShape = {
  principal: z.string({ error: 'expected the token principal name (a string)' }).regex(/^[A-Za-z0-9._@-]{1,64}$/, { error: 'expected 1 to 64 letters, digits, `.`, `_`, `@` or `-`' }),
  scopes: z
    .array(z.enum(['approvals:read', 'approvals:resolve'], { error: 'expected "approvals:read" or "approvals:resolve"' }), { error: 'expected a list of scopes' })
    .min(1, { error: 'expected at least one scope' }),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, { error: 'expected the hex SHA-256 of the token (64 lowercase hex digits), never the token itself' })
    .optional(),
  env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected the name of an environment variable' })
    .optional(),
};
const Token = z
  .strictObject(TokenShape, { error: 'expected a token: a mapping with principal, scopes and sha256 or env' })
  .refine((t) => (t.sha256 === undefined) !== (t.env === undefined), { error: 'expected exactly one of `sha256` (the hash of the secret) or `env` (a variable holding it)' });

const AlwaysAllowShape = {
  tool: z.string({ error: 'expected a tool name or kind:<kind>' }).min(1),
  exact: z.string().optional(),
  glob: z.string().optional(),
  regex: z.string().optional(),
};
const AlwaysAllow = z
  .strictObject(AlwaysAllowShape, { error: 'expected a rule: tool plus one of exact, glob or regex' })
  .refine((r) => [r.exact, r.glob, r.regex].filter((x) => x !== undefined).length === 1, { error: 'expected exactly one of `exact`, `glob` or `regex` (a literal value is never read as a pattern)' });

/** The `approvals` section: opt-in human review of tool calls. */
const ApprovalsShape = {
  interactive: z.boolean({ error: 'expected true or false' }).default(false),
  timeout_s: SecondsUpTo(MAX_APPROVAL_TIMEOUT_S).optional(),
  timeout_seconds: SecondsUpTo(MAX_APPROVAL_TIMEOUT_S).optional(),
  smart_auto_approve: z.boolean({ error: 'expected true or false' }).default(false),
  tokens: z.array(Token, { error: 'expected a list of tokens' }).default([]),
  always_allow: z.array(AlwaysAllow, { error: 'expected a list of rules' }).default([]),
};

const ProfileSpec = z.strictObject(
  {
    tools: z.record(z.string(), z.union([z.boolean(), z.strictObject({ paths: z.array(z.string()).optional() })]), {
      error: 'expected a mapping of tool names (or kind:<kind>) to true, false or {paths: [...]}',
    }),
    shell: z.strictObject({ allow: z.array(z.string()) }).optional(),
  },
  { error: 'expected a profile: a mapping with `tools` (and optionally `shell`)' },
);

/** The `permissions` section: which permission profile applies (fail-closed), plus custom profiles. */
const PermissionsShape = {
  profile: z.string({ error: 'expected a profile name' }).min(1).optional(),
  custom: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), ProfileSpec).default({}),
};

/** A section named in the design that a later version will read; today it is refused, not ignored. */
const unsupported = (name: string) => z.never({ error: `section \`${name}\` is not supported by this version of Gatehouse; remove it for now` }).optional();

/** `sandbox:` — run the agent, its hooks and the required checks inside bubblewrap (`gatehouse run`). */
const SandboxShape = {
  enabled: z.boolean({ error: 'expected true or false' }).default(false),
  network: z.enum(['host', 'none'], { error: 'expected "host" (the machine\'s network) or "none" (no network at all)' }).default('host'),
  // More to keep out of sight: `~/.ssh`, an absolute path, or a path in the worktree (`.env`).
  hide: z
    .array(
      z.string({ error: 'expected a path: `~/…`, absolute, or relative to the worktree' }).refine((p) => p.trim() !== '' && !p.split('/').includes('..'), { error: 'expected a path without `..`' }),
      { error: 'expected a list of paths' },
    )
    .default([]),
};

/** Longest wait to gather waiting calls into one message: a person told a minute late may as well not be told. */
const MAX_NOTIFY_BATCH_MS = 60_000;
/** Default gathering window after a message: the first call is told at once, the burst after it in one message a second later. */
const DEFAULT_NOTIFY_BATCH_MS = 1_000;

/**
 * A variable a notification channel may read: only one named for Gatehouse. The config lives in
 * the project, which a cloned repository brings: it must not be able to send any other secret of
 * yours (`token_env: GITHUB_TOKEN`) to a URL it names.
 */
const EnvName = z
  .string({ error: 'expected the name of an environment variable' })
  .regex(/^GATEHOUSE_[A-Z0-9_]+$/, { error: 'expected a variable named for Gatehouse, GATEHOUSE_…: a project config may not send any other variable anywhere' });
/** Why `u` cannot be a channel's URL, or null: http(s) only, and no user name or password in it (fetch refuses those, and they would be logged). */
export function channelUrlProblem(u: string): string | null {
  if (!/^https?:\/\/[^\s/]+/i.test(u) || !URL.canParse(u)) return 'expected an http:// or https:// URL';
  const parsed = new URL(u);
  return parsed.username !== '' || parsed.password !== '' ? 'expected a URL without a user name or password in it (send a token with token_env instead)' : null;
}
const HttpUrl = z.string({ error: 'expected an http:// or https:// URL' }).superRefine((u, ctx) => {
  const problem = channelUrlProblem(u);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});
const oneUrl = (v: { url?: string | undefined; url_env?: string | undefined }) => (v.url === undefined) !== (v.url_env === undefined);
const ONE_URL = { error: 'expected exactly one of `url` or `url_env` (a variable holding the URL, for URLs that carry a secret)' };

/**
 * A token is sent to the channel's server, so it goes only where your environment says: a URL
 * written in the project's config (which a cloned repository brings) could be anyone's server.
 */
const tokenGoesWhereYouSaid = (v: { url_env?: string | undefined; token_env?: string | undefined }) => v.token_env === undefined || v.url_env !== undefined;
const TOKEN_NEEDS_URL_ENV = {
  error:
    'token_env sends your token to the server of `url`, which the repository wrote: give the URL in a variable too (url_env: GATEHOUSE_…), so that the token only ever goes where your environment says',
};

/** One channel entry: where to send, and the variables holding its secrets (never the secrets). */
const WebhookShape = { url: HttpUrl.optional(), url_env: EnvName.optional(), secret_env: EnvName.optional() };
const NtfyShape = { url: HttpUrl.optional(), url_env: EnvName.optional(), token_env: EnvName.optional() };
const SlackShape = { url: HttpUrl.optional(), url_env: EnvName.optional() };

/** The `notify` section: who is told when a call waits for a person, and how. */
const NotifyShape = {
  batch_ms: z
    .int({ error: `expected a whole number of milliseconds from 0 to ${MAX_NOTIFY_BATCH_MS}` })
    .min(0, { error: `expected a whole number of milliseconds from 0 to ${MAX_NOTIFY_BATCH_MS}` })
    .max(MAX_NOTIFY_BATCH_MS, { error: `expected a whole number of milliseconds from 0 to ${MAX_NOTIFY_BATCH_MS}` })
    .default(DEFAULT_NOTIFY_BATCH_MS),
  public_url: HttpUrl.optional(),
  webhooks: z
    .array(z.strictObject(WebhookShape, { error: 'expected a webhook: a mapping with `url` (or `url_env`) and optionally `secret_env`' }).refine(oneUrl, ONE_URL), {
      error: 'expected a list of webhooks',
    })
    .default([]),
  ntfy: z
    .array(
      z
        .strictObject(NtfyShape, { error: 'expected an ntfy topic: a mapping with `url` (server and topic) and optionally `token_env`' })
        .refine(oneUrl, ONE_URL)
        .refine(tokenGoesWhereYouSaid, TOKEN_NEEDS_URL_ENV),
      {
        error: 'expected a list of ntfy topics',
      },
    )
    .default([]),
  slack: z
    .array(z.strictObject(SlackShape, { error: 'expected a Slack-compatible webhook: a mapping with `url` or `url_env`' }).refine(oneUrl, ONE_URL), {
      error: 'expected a list of Slack-compatible webhooks',
    })
    .default([]),
  desktop: z.boolean({ error: 'expected true or false' }).default(false),
};

const approvalsTimeout = oneTimeout(OLD_TIMEOUT_KEYS.approvals, DEFAULT_APPROVAL_TIMEOUT_S);

/** The whole config file (v1). A YAML `gate:` with nothing under it counts as an empty section. */
export const ConfigFile = z.strictObject(
  {
    gate: z.preprocess((v) => (v === null ? {} : v), z.strictObject(GateShape, { error: 'expected the `gate` section to be a mapping' })).prefault({}),
    approvals: z
      .preprocess(
        (v) => (v === null ? {} : v),
        z
          .strictObject(ApprovalsShape, { error: 'expected the `approvals` section to be a mapping' })
          .transform(({ timeout_s: _s, timeout_seconds: _old, ...rest }, ctx) => ({ ...rest, timeout_s: approvalsTimeout({ timeout_s: _s, timeout_seconds: _old }, ctx) })),
      )
      .prefault({}),
    permissions: z.preprocess((v) => (v === null ? {} : v), z.strictObject(PermissionsShape, { error: 'expected the `permissions` section to be a mapping' })).prefault({}),
    stop_hooks: z.preprocess((v) => (v === null ? [] : v), StopHooks).default([]),
    verifiers: z.preprocess((v) => (v === null ? {} : v), z.strictObject(VerifiersShape, { error: 'expected the `verifiers` section to be a mapping' })).prefault({}),
    // `sandbox: true` is short for `sandbox: {enabled: true}`.
    sandbox: z
      .preprocess(
        (v) => (v === null ? {} : typeof v === 'boolean' ? { enabled: v } : v),
        z.strictObject(SandboxShape, { error: 'expected `sandbox` to be true, false or a mapping with `enabled`, `network` and `hide`' }),
      )
      .prefault({}),
    notify: z.preprocess((v) => (v === null ? {} : v), z.strictObject(NotifyShape, { error: 'expected the `notify` section to be a mapping' })).prefault({}),
    // `store: postgres://user@host/db?password_env=NAME`: the team's database (docs/teams.md).
    store: z
      .string({ error: 'expected `file` or a postgres:// URL (a string)' })
      .transform((v, ctx): StoreSpec => {
        const spec = parseStoreSetting(v, 'store', 'project');
        if (spec.ok) return spec.value;
        ctx.addIssue({ code: 'custom', message: spec.reason.replace(/^store: /, '') });
        return z.NEVER;
      })
      .optional(),
    gateway: unsupported('gateway'),
  },
  { error: 'expected a mapping of sections (e.g. `gate:`) at the top of the file' },
);
export type ConfigFile = z.output<typeof ConfigFile>;

/** A problem found in a config document, before the file and line are added. */
export interface ConfigProblem {
  /** Path of the offending key, e.g. `['gate', 'producers', 1, 'timeout_s']`. */
  path: (string | number)[];
  message: string;
}

/** Turns zod issues into problems that say what is expected and what was found. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ path: [...path, key], message: unknownKeyMessage(path, key) });
      continue;
    }
    const missing = (issue.code === 'invalid_type' || issue.code === 'invalid_union') && issue.input === undefined;
    const message = missing ? `missing required key; ${issue.message}` : `${issue.message}${found(issue)}`;
    problems.push({ path, message });
  }
  return problems;
}

/** Keys accepted in the mapping at `path`, for "did you mean" and for listing what is allowed. */
function knownKeysAt(path: readonly (string | number)[]): readonly string[] {
  if (path.length === 0) return ['gate', 'stop_hooks', 'verifiers', 'approvals', 'permissions', 'sandbox', 'notify'];
  if (path.length === 1 && path[0] === 'notify') return Object.keys(NotifyShape);
  if (path.length === 3 && path[0] === 'notify' && path[1] === 'webhooks') return Object.keys(WebhookShape);
  if (path.length === 3 && path[0] === 'notify' && path[1] === 'ntfy') return Object.keys(NtfyShape);
  if (path.length === 3 && path[0] === 'notify' && path[1] === 'slack') return Object.keys(SlackShape);
  if (path.length === 1 && path[0] === 'sandbox') return Object.keys(SandboxShape);
  if (path.length === 1 && path[0] === 'approvals') return Object.keys(ApprovalsShape);
  if (path.length === 1 && path[0] === 'permissions') return Object.keys(PermissionsShape);
  if (path.length === 3 && path[1] === 'tokens') return Object.keys(TokenShape);
  if (path.length === 3 && path[1] === 'always_allow') return Object.keys(AlwaysAllowShape);
  if (path.length === 1 && path[0] === 'gate') return Object.keys(GateShape);
  if (path.length === 1 && path[0] === 'verifiers') return Object.keys(VerifiersShape);
  if (path.length === 2 && path[0] === 'verifiers' && path[1] === 'goal') return Object.keys(GoalShape);
  if (path.length === 2 && path[0] === 'stop_hooks') return Object.keys(StopHookShape);
  if (path.length === 3 && path[1] === 'producers') return Object.keys(ProducerShape);
  return [];
}

function unknownKeyMessage(path: readonly (string | number)[], key: string): string {
  const known = knownKeysAt(path);
  const what = path.length === 0 ? 'section' : 'key';
  const hint = closestKey(key, known);
  if (hint !== null) return `unknown ${what} \`${key}\`; did you mean \`${hint}\`?`;
  return known.length > 0 ? `unknown ${what} \`${key}\`; expected one of: ${known.join(', ')}` : `unknown ${what} \`${key}\``;
}

/** Why `value` is not a usable relative glob, or null. */
function relativeGlobProblem(value: string): string | null {
  if (value.trim() === '') return 'expected a non-empty relative path or glob';
  if (value.startsWith('/') || value.startsWith('\\') || /^[A-Za-z]:/.test(value)) {
    return 'expected a path relative to the project root, not an absolute path';
  }
  if (value.split(/[\\/]/).includes('..')) return 'expected a path inside the project; `..` segments are not allowed';
  return null;
}

function found(issue: z.core.$ZodIssue): string {
  // Custom issues already quote the offending value where it helps; an unsupported section's value is beside the point.
  if (issue.code === 'custom' || (issue.code === 'invalid_type' && issue.expected === 'never')) return '';
  if (!('input' in issue) || issue.input === undefined) return '';
  return `, got ${describeValue(issue.input)}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}
