// Stop hooks: the operator's shell hooks, the fail-closed goal gate and hooks.json Stop
// hooks, each a verifier-chain stage; these are the folder's public names.
export type { StopHookContext } from './context.js';
export { combineStopHooks, runStopHook, runStopHooks, shellStopHooksVerifier, DEFAULT_STOP_HOOK_TIMEOUT_SECS } from './shell.js';
export type { StopHookOutcome, StopHookResult, StopHookRunOptions, StopHookSpec, StopHooksDetail } from './shell.js';
export { checkGoalGate, goalGateVerifier, GOAL_GATE_HOOK_NAME } from './goal-gate.js';
export type { GateCommandSource, GoalGateConfig, GoalObjective } from './goal-gate.js';
export { extensionStopHooksVerifier, loadExtensionHooks, runExtensionHook, CONSECUTIVE_VETOES_KEY, MAX_CONSECUTIVE_VETOES } from './extension.js';
export type { ExtensionHookResult, ExtensionStopHook, LoadedExtensionHooks, SessionKeyValueStore } from './extension.js';
