// Reads a project's audit log back for tests: its approval decision events, and whether the
// whole log verifies as `gatehouse audit verify` would check it (with the project's keys).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyAudit, type VerifyReport } from '../../src/runtime/audit/verify.js';
import { knownPublicKeys } from '../../src/runtime/key-history.js';

/** One `human_approval_decision` event as its line holds it. */
export interface DecisionEvent {
  actor: string;
  session_id: string | null;
  data: { approval_id: string; tool: string; decision: string; decided_by: string; auth?: string; reason?: string };
}

/** Every event of `<state>/audit/log.jsonl`, in order (none when there is no log yet). */
export function auditEvents(state: string): { type: string; actor: string; session_id: string | null; data: Record<string, unknown> }[] {
  const file = join(state, 'audit', 'log.jsonl');
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8').trim();
  return text === '' ? [] : text.split('\n').map((l) => JSON.parse(l) as { type: string; actor: string; session_id: string | null; data: Record<string, unknown> });
}

/** The approval decisions recorded for `approvalId` (exactly one is expected per resolution). */
export function decisionsFor(state: string, approvalId: string): DecisionEvent[] {
  return auditEvents(state).filter((e) => e.type === 'human_approval_decision' && e.data.approval_id === approvalId) as unknown as DecisionEvent[];
}

/** Verifies the project's audit log with the keys beside it. */
export function verifyProjectAudit(state: string): VerifyReport {
  return verifyAudit(join(state, 'audit'), [...knownPublicKeys(state).values()]);
}
