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
export { startSession, endSession, checkSession } from './adapters/session-lifecycle.js';
export { runHookGate } from './adapters/hook-gate.js';
