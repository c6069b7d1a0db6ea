// The operator's approval rules as the session policy stores them: always-allow rules and
// permission profiles. One shape each (shape.ts), the type read from it; what they mean is in always-allow.ts and profiles.ts.
import { boolean, dictionary, either, list, object, optional, text, type Infer } from '../shape.js';

/**
 * One rule. `tool` is the agent's tool name or `kind:<kind>`. `match` is exactly one of:
 * - `exact` — the key must equal this text; never read as a pattern (`a.b` does not match `axb`);
 * - `glob` — on a path key, the allowlist's path glob (`**` crosses `/`, `*` does not);
 *   on a command or JSON key, a `*`-only glob where `*` matches anything and the rest is literal;
 * - `regex` — a regular expression (`u` flag) that must match the whole key.
 * A glob or regex matches a shell command only if the command line is one whole simple
 * command (no `;`, `&&`, `||`, `|`, `&`, substitutions or file redirections): the person wrote
 * a pattern for one command, never for whatever a compound line appends to it. An exact rule
 * matches its exact text, compound or not: the person saw all of it.
 */
export const AlwaysAllowRule = object({
  tool: text(),
  // Strict: `{exact, glob}` is two matchers, never the first with the second dropped.
  match: either(
    [object({ exact: text() }, { strict: true }), object({ glob: text() }, { strict: true }), object({ regex: text() }, { strict: true })],
    'must be exactly one of {exact}, {glob} or {regex}',
  ),
});
export type AlwaysAllowRule = Infer<typeof AlwaysAllowRule>;

/** Limits on one tool. `paths` are worktree-relative globs every path the call touches must match. */
export const ToolRule = object({ paths: optional(list(text())) });
export type ToolRule = Infer<typeof ToolRule>;

/**
 * A profile. `tools` keys are the agent's own tool names (`Write`, `Bash`, …) or a core
 * kind (`kind:write`, `kind:shell`, `kind:read`, `kind:other`); a name rule wins over its
 * kind rule, so `WebFetch: false` beside `kind:read: true` turns off just that tool.
 * `true` allows the tool, `false` refuses it, a `ToolRule` allows it within its paths.
 * `shell.allow` restricts every shell-kind call (see `compileShellAllow`); without a
 * `shell` section any command passes the profile (the classifier deny-list still applies).
 * A shell command's write targets are writes: they need the `kind:write` rule.
 */
export const ProfileSpec = object({
  tools: dictionary(either([ToolRule, boolean()], 'must be true, false or {paths}')),
  shell: optional(object({ allow: list(text()) })),
});
export type ProfileSpec = Infer<typeof ProfileSpec>;
