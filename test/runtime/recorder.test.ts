// The recorder seals a decision and its evidence in one hold of the audit log's lock, and records
// the decision itself even when its evidence cannot be sealed (real files, a real key).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/core/policy.js';
import { block } from '../../src/core/verdict.js';
import type { ChainResult } from '../../src/core/verifier-chain.js';
import { AuditLog } from '../../src/runtime/audit/log.js';
import { verifyAudit } from '../../src/runtime/audit/verify.js';
import { loadEvidence } from '../../src/runtime/evidence/index.js';
import { loadOrCreateKey } from '../../src/runtime/keys.js';
import { recordCompletion, recordGateDecision } from '../../src/runtime/recorder.js';
import { testPolicy } from '../support/policy.js';

let root: string;
let policy: Policy;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatehouse-recorder-'));
  policy = testPolicy({ worktree: join(root, 'w'), state_dir: join(root, 'state'), producers: [] });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const audit = (): AuditLog => new AuditLog(join(policy.state_dir, 'audit'));
const types = (): string[] => [...audit().events()].map((e) => e.type);
const refused = block('write.not_allowed', 'package.json is outside the allowlist');
const failed: ChainResult = { outcome: 'block', decidedBy: 'scope_check', failed: ['scope_check'], reason: 'files outside the scope changed', records: [] };

describe('recorder', () => {
  it('seals a refused write: its decision, the evidence event and a checkpoint over both, in that order', () => {
    const key = loadOrCreateKey(policy.state_dir);
    const id = recordGateDecision(policy, { tool: 'Write', targets: ['package.json'] }, refused, 'a'.repeat(64));
    expect(id).not.toBeNull();
    expect(types()).toEqual(['gate_decision', 'evidence_sealed']);
    expect(
      audit()
        .checkpoints()
        .map((c) => c.tree_size),
    ).toEqual([2]);
    expect(loadEvidence(policy.state_dir, id!)?.ok).toBe(true);
    expect(verifyAudit(join(policy.state_dir, 'audit'), [key.publicKey])).toMatchObject({ ok: true, events: 2, covered: 2 });
  });

  it('records a refused write and a completion verdict even when the signing key cannot be read', () => {
    mkdirSync(join(policy.state_dir, 'keys'), { recursive: true });
    writeFileSync(join(policy.state_dir, 'keys', 'ed25519.key.pem'), 'not a key\n');
    expect(recordGateDecision(policy, { tool: 'Write', targets: ['package.json'] }, refused, 'a'.repeat(64))).toBeNull();
    expect(recordCompletion(policy, 'in_session', failed)).toBeNull();
    expect(types()).toEqual(['gate_decision', 'completion_verdict']);
    expect(audit().checkpoints()).toEqual([]);
  });

  it('records a completion verdict even when its evidence blobs cannot be stored', () => {
    loadOrCreateKey(policy.state_dir);
    // A file where the blob folder belongs: no blob can be written.
    mkdirSync(join(policy.state_dir, 'evidence'), { recursive: true });
    writeFileSync(join(policy.state_dir, 'evidence', 'blobs'), 'in the way\n');
    expect(recordCompletion(policy, 'in_session', failed, { lastMessage: 'done' })).toBeNull();
    expect(types()).toEqual(['completion_verdict']);
  });
});
