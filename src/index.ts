// The library entry: the pieces a TypeScript agent loop or another tool can use directly.
export { VerifierChain } from './core/verifier-chain.js';
export type { ChainResult, TurnVerifier, VerifierOutcome, VerifierPosture, VerifierRecord } from './core/verifier-chain.js';
export { compileGlob, matchesAny } from './core/glob.js';
export { compileWriteScope, decideWrite } from './core/write-gate.js';
export type { WriteScope, ResolvedTarget } from './core/write-gate.js';
export type { Policy, ProducerSpec, Posture } from './core/policy.js';
export type { GateEvent, PreToolEvent, StopEvent, ToolKind } from './core/event.js';
export type { Verdict } from './core/verdict.js';
export type { Result } from './core/result.js';
export { resolveWriteTarget } from './runtime/resolve-path.js';
export { runProducers } from './runtime/producers.js';
export type { ProducerResult } from './runtime/producers.js';
export { startSession } from './gate/session-lifecycle.js';
export { endSession, checkSession } from './gate/session-end.js';
export { runHookGate } from './gate/hook-gate.js';
// In-process gating for programs built on the Claude Agent SDK (docs/agents.md).
export { gatehouseHooks } from './gate/sdk-hooks.js';
export type { GatehouseHooksOptions, GatehouseSdkHooks } from './gate/sdk-hooks.js';
// The turn-level verifier chain for custom agent loops (see docs/verifier-chain.md).
export * from './core/turn/index.js';
export { readTranscriptTodos } from './runtime/transcript.js';
export { shellStopHooksVerifier, runStopHooks, combineStopHooks } from './runtime/stop-hooks/shell.js';
export { goalGateVerifier } from './runtime/stop-hooks/goal-gate.js';
export { extensionStopHooksVerifier } from './runtime/stop-hooks/extension.js';
export { loadExtensionHooks } from './runtime/stop-hooks/extension-config.js';
export type { StopHookContext } from './runtime/stop-hooks/context.js';
export type { StopHookSpec, StopHookResult } from './runtime/stop-hooks/shell.js';
export type { GoalObjective } from './runtime/stop-hooks/goal-gate.js';
// The shell classifier: deny, approve or ask for a bash command line, with the rule (and
// knowledge-base entry) that decided. `analyzeShell('kubectl get pods', {cwd, protectedPaths: []}).class` is 'approve'.
export { analyzeShell } from './core/shell/index.js';
export type { ShellAnalysis, ShellClass, ShellContext } from './core/shell/index.js';
// Audit log and evidence, for tools that verify or append outside the CLI.
export { AuditLog, verifyAudit, verifyAuditParallel, verifyThreads } from './runtime/audit/index.js';
export type { AuditEvent, AuditEventType, VerifyReport, StoredCheckpoint } from './runtime/audit/index.js';
export { verifyEvidence, verifyEvidenceFile } from './runtime/evidence/index.js';
export { loadOrCreateKey, publicKeyFromPem, keyIdOf } from './runtime/keys.js';
// The supervisor's building blocks, for embedding and for the benchmarks.
export { startGateway } from './gateway/index.js';
export { PtyManager } from './gateway/pty/index.js';
// A session's sandbox as the launcher starts it, for the benchmarks and other launchers.
export { sandboxedArgv } from './core/sandbox.js';
export type { SandboxSpec } from './core/sandbox.js';
// The team store's audit log (docs/teams.md), for hosts of a team link and for the benchmarks.
export { openStore } from './runtime/store/pg-connect.js';
export { thisMachine } from './runtime/store/machine.js';
export { startAuditForwarding, startAuditForwardingWith } from './runtime/store/pg-audit-forward.js';
export { verifyTeamAudit } from './runtime/store/pg-audit-verify.js';
