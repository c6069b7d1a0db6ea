import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rotateKey } from '../../../src/runtime/key-history.js';
import { loadOrCreateKey, type SigningKey } from '../../../src/runtime/keys.js';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { keyRotatedData, rotationEndorsement, verifyRotationEndorsement } from '../../../src/runtime/audit/rotation.js';
import { verifyAudit } from '../../../src/runtime/audit/verify.js';
import { gateEvent, tempKey, tempProject } from './helpers.js';

let project: ReturnType<typeof tempProject>;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.dispose());

function rotated(log: AuditLog, data: ReturnType<typeof keyRotatedData>): void {
  log.append({ type: 'key_rotated', actor: 'system:keys', session_id: null, data });
}

describe('rotation endorsements', () => {
  it('verify under the previous key and yield the new public key', () => {
    const [a, b] = [tempKey(project.state), tempKey(project.state)];
    const data = keyRotatedData(a, b);
    const r = verifyRotationEndorsement(data, a.publicKey);
    expect(r.ok && r.value.export({ type: 'spki', format: 'pem' })).toBe(b.publicKeyPem);
  });

  it('fail for another signer, another key id, or a key that does not match its id', () => {
    const [a, b, c] = [tempKey(project.state), tempKey(project.state), tempKey(project.state)];
    expect(verifyRotationEndorsement({ ...keyRotatedData(a, b), endorsement: rotationEndorsement(c, b) }, a.publicKey)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/is not endorsed by key/) as string,
    });
    expect(verifyRotationEndorsement(keyRotatedData(a, b), c.publicKey)).toMatchObject({ ok: false, reason: expect.stringMatching(/names previous key/) as string });
    expect(verifyRotationEndorsement({ ...keyRotatedData(a, b), public_key_pem: c.publicKeyPem }, a.publicKey)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not the id of the public key/) as string,
    });
    expect(verifyRotationEndorsement({ ...keyRotatedData(a, b), public_key_pem: 'nope' }, a.publicKey).ok).toBe(false);
  });
});

describe('verifyAudit across a key rotation', () => {
  it('accepts checkpoints by a key the trusted key endorsed in the log', () => {
    const log = new AuditLog(project.audit);
    const first = loadOrCreateKey(project.state);
    for (let i = 0; i < 5; i++) log.append(gateEvent(i));
    log.checkpoint(first);
    const { previous, current } = rotateKey(project.state);
    expect(previous.keyId).toBe(first.keyId);
    rotated(log, keyRotatedData(previous, current));
    for (let i = 5; i < 8; i++) log.append(gateEvent(i));
    log.checkpoint(current);
    const r = verifyAudit(project.audit, [first.publicKey]);
    expect(r).toMatchObject({ ok: true, checkpoints: 2, covered: 9, trusted_key_ids: [first.keyId, current.keyId] });
  });

  it('rejects a rotation the trusted key did not endorse, and the checkpoints of its key', () => {
    const log = new AuditLog(project.audit);
    const [trusted, intruder, accomplice] = [tempKey(project.state), tempKey(project.state), tempKey(project.state)];
    for (let i = 0; i < 3; i++) log.append(gateEvent(i));
    log.checkpoint(trusted);
    rotated(log, { ...keyRotatedData(trusted, intruder), endorsement: rotationEndorsement(accomplice, intruder) });
    log.checkpoint(intruder);
    const r = verifyAudit(project.audit, [trusted.publicKey]);
    expect(r.ok).toBe(false);
    expect(r.first_bad).toEqual({ seq: 3, reason: expect.stringMatching(/key_rotated: The rotation to key \w+ is not endorsed by key \w+\. The new key is not trusted\./) as string });
    expect(r.problems[1]).toMatch(new RegExp(`checkpoint #2 \\(tree size 4\\) is signed only by ${intruder.name}, which is not a trusted key`));
    expect(r).toMatchObject({ checkpoints: 1, covered: 3, trusted_key_ids: [trusted.keyId] });
  });

  it('does not let a rotated-in key vouch for a tree without its rotation', () => {
    const log = new AuditLog(project.audit);
    const a: SigningKey = tempKey(project.state);
    const b: SigningKey = tempKey(project.state);
    for (let i = 0; i < 3; i++) log.append(gateEvent(i));
    log.checkpoint(b);
    rotated(log, keyRotatedData(a, b));
    const r = verifyAudit(project.audit, [a.publicKey]);
    expect(r.problems).toEqual([expect.stringMatching(new RegExp(`checkpoint #1 \\(tree size 3\\) is signed by ${b.name}, which the log introduces only at seq 3`))]);
  });
});
