// Permission profiles, always-allow rules, principals and the decision order for one
// tool call: the pure half of interactive approvals (the queue itself lives in runtime/).
export { rulesForAlways, argumentKeys, compileAlwaysAllow, matchesAlwaysAllow, NO_ALWAYS_ALLOW } from './always-allow.js';
export type { AlwaysAllowCall, AlwaysAllowRule, CompiledAlwaysAllow } from './always-allow.js';
export { decideToolCall, DEFAULT_APPROVALS } from './decide.js';
export { MAX_REVIEW_CHARS, REASON_SUMMARY_CHARS, safeForDisplay, shortSummary, summarizeCall } from './summary.js';
export type { ApprovalSettings, DecideCall, DecideInput, ToolDecision } from './decide.js';
export { checkPrincipal, dashboardOperator, osUserPrincipal, systemPrincipal, tokenPrincipal } from './principal.js';
export type { Principal, PrincipalAuth } from './principal.js';
export { BUILTIN_PROFILES, checkProfile, compileProfile, compileProfileSpec } from './profiles.js';
export type { BuiltinProfileName, CompiledProfile, ProfileCall, ProfileSpec, ToolRule } from './profiles.js';
