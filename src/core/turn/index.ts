// The turn-level verifiers (the Stop side of an agent loop), as one import for the hooks
// and for TypeScript agent loops that call the chain between "think" and "act".
export { buildVerifierChain, DEFAULT_VERIFIER_ORDER } from './builder.js';
export type { BuiltChain, ChainConfig, VerifierName, VerifierParts } from './builder.js';
export { clampProfile, DEFAULT_PROFILE, hashArgs, memoryStateStore, pushRecent, RECENT_TOOL_CALLS, toolCallRecord } from './context.js';
export type { RobustnessProfile, ToolCallFlags, ToolCallRecord, TurnStateStore, TurnVerifyContext, VerifierOptions } from './context.js';
export { checkExecutionList, executionListVerifier, parseScratchpad, todosFromTranscript } from './execution-list.js';
export type { ExecItem, Scratchpad } from './execution-list.js';
export { AWAITED_TASK_CALL_KEY, isTaskTool, TASK_TOOL_NAMES, taskFactsOfLine, taskListFromCalls, taskListFromLines } from './task-tools.js';
export type { TaskLineFacts, TaskToolCall, TaskToolName, ToolOutcome } from './task-tools.js';
export { checkGateCommand } from './goal-gate-command.js';
export type { GateCommandCheck } from './goal-gate-command.js';
export { checkMutationNudge, EMPTY_MUTATION_TRACK, mutationNudgeVerifier, mutationTrackFromLog, observeCall } from './mutation-nudge.js';
export type { MutationNudgeInput, MutationTrack } from './mutation-nudge.js';
export { checkFailureCount, checkFailureRun, checkMaxToolCalls, checkToolLoop, checkToolRun, extendToolRun, toolLoopVerifier } from './tool-loop.js';
export type { ToolRun } from './tool-loop.js';
