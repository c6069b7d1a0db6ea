import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/core/crypto/canonical-json.js';
import { consistencyProof, inclusionProof, leafHash, rootFromLeaves, verifyConsistency, verifyInclusion } from '../../../src/core/crypto/merkle.js';
import { parseCheckpoint } from '../../../src/core/crypto/signed-note.js';
import { verifyNote } from '../../../src/core/crypto/signed-note-verify.js';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { GENESIS_HASH } from '../../../src/runtime/audit/record.js';
import { verifyAudit } from '../../../src/runtime/audit/verify.js';
import { gateEvent, tempKey, tempProject } from './helpers.js';

let project: ReturnType<typeof tempProject>;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.dispose());

const fromHex = (h: string): Buffer => Buffer.from(h, 'hex');
const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').slice(0, -1);

describe('AuditLog', () => {
  it('writes canonical, hash-chained lines whose seq is their leaf index', () => {
    const log = new AuditLog(project.audit);
    const a = log.append({ type: 'session_started', actor: 'os-user:alice', session_id: 's1', data: { agent: 'claude', worktree: '/w' }, time: '2025-01-01T00:00:00.000Z' });
    const b = log.append(gateEvent(1));
    expect(a.seq).toBe(0);
    expect(a.prev_hash).toBe(GENESIS_HASH);
    expect(b.seq).toBe(1);
    expect(b.prev_hash).toBe(a.hash);
    const [l0, l1] = lines(log.logPath);
    expect(l0).toBe(canonicalJson(a));
    expect(l1).toBe(canonicalJson(b));
    const { hash: _hash, ...withoutHash } = a;
    expect(a.hash).toBe(sha256(canonicalJson(withoutHash)));
    expect(log.size()).toBe(2);
    expect(log.line(1)).toBe(l1);
    expect(log.line(2)).toBeNull();
    expect(log.tail(1)).toEqual([b]);
    expect(log.tail(5)).toEqual([a, b]);
    expect([...log.events()]).toEqual([a, b]);
    expect(log.root()).toBe(rootFromLeaves([leafHash(l0!), leafHash(l1!)]).toString('hex'));
  });

  it('drops undefined data fields and refuses bad input with an Error', () => {
    const log = new AuditLog(project.audit);
    const e = log.append({
      type: 'completion_verdict',
      actor: 'system:hook-gate',
      session_id: 's1',
      data: { where: 'stop', outcome: 'block', decided_by: 'producers', reason: 'tests fail', verifiers: [{ name: 'producers', outcome: 'block' }], input_digest: undefined },
    });
    expect('input_digest' in e.data).toBe(false);
    expect(() => log.append({ ...gateEvent(1), actor: 'root' })).toThrow(/actor "root" is not a principal id/);
    expect(() => log.append({ ...gateEvent(1), session_id: '../x' })).toThrow(/session_id/);
    expect(() => log.append({ ...gateEvent(1), type: 'nope' as 'gate_decision' })).toThrow(/not a registered event type/);
    expect(() => log.append({ ...gateEvent(1), data: { ...gateEvent(1).data, targets: 'x' as unknown as string[] } })).toThrow(/targets must be an array of strings/);
    expect(() => log.append({ ...gateEvent(1), data: { ...gateEvent(1).data, extra: Number.NaN } as never })).toThrow(/NaN/);
    expect(log.size()).toBe(1);
    expect(verifyAudit(project.audit, []).ok).toBe(true);
  });

  it('writes and verifies data whose keys JavaScript reorders (integer-like keys)', () => {
    const log = new AuditLog(project.audit);
    const data = { ...gateEvent(0).data, 10: 'ten', 9: 'nine' } as unknown as ReturnType<typeof gateEvent>['data'];
    log.append({ ...gateEvent(0), data });
    expect(log.line(0)).toContain('"10":"ten","9":"nine"');
    expect(verifyAudit(project.audit, [])).toMatchObject({ ok: true, events: 1 });
  });

  it('serves inclusion and consistency proofs from its Merkle files that match the reference for every size', () => {
    const log = new AuditLog(project.audit);
    for (let i = 0; i < 70; i++) log.append(gateEvent(i));
    const leaves = lines(log.logPath).map((l) => leafHash(l));
    for (let n = 0; n <= 70; n++) expect(log.root(n), `root ${n}`).toBe(rootFromLeaves(leaves.slice(0, n)).toString('hex'));
    for (let n = 1; n <= 70; n += 3) {
      for (let i = 0; i < n; i++) {
        const p = log.inclusionProof(i, n);
        expect(p.hashes).toEqual(inclusionProof(leaves.slice(0, n), i).map((h) => Buffer.from(h).toString('hex')));
        expect(verifyInclusion(leaves[i]!, i, n, p.hashes.map(fromHex), fromHex(p.root))).toBe(true);
      }
      for (let m = 0; m <= n; m++) {
        const c = log.consistencyProof(m, n);
        expect(c.hashes).toEqual(consistencyProof(leaves, m, n).map((h) => Buffer.from(h).toString('hex')));
        expect(verifyConsistency(m, n, fromHex(c.first_root), fromHex(c.second_root), c.hashes.map(fromHex))).toBe(true);
      }
    }
    expect(() => log.inclusionProof(70, 70)).toThrow();
    expect(() => log.root(71)).toThrow(/not between 0 and the log size 70/);
  });

  it('signs checkpoints as C2SP notes over the current tree head, without adding events', () => {
    const key = tempKey(project.state);
    const log = new AuditLog(project.audit);
    for (let i = 0; i < 5; i++) log.append(gateEvent(i));
    const cp = log.checkpoint(key);
    expect(log.size()).toBe(5);
    expect(cp.tree_size).toBe(5);
    expect(cp.root).toBe(log.root());
    const v = verifyNote(cp.note, key.name, key.publicKey);
    expect(v.ok).toBe(true);
    const body = v.ok ? parseCheckpoint(v.body) : null;
    expect(body?.ok && body.value.origin).toBe(`gatehouse/${project.state.split('/').at(-1)}`);
    log.append(gateEvent(5));
    log.checkpoint(key, 'example.com/log');
    expect(log.checkpoints().map((c) => c.tree_size)).toEqual([5, 6]);
    expect(log.latestCheckpoint()?.note.startsWith('example.com/log\n6\n')).toBe(true);
    const report = verifyAudit(project.audit, [key.publicKey]);
    expect(report).toMatchObject({ ok: true, events: 6, size: 6, checkpoints: 2, covered: 6, first_bad: null, root: log.root() });
  });

  it('appends several events and a checkpoint over them in one hold of the lock, with a proof of each in it', () => {
    const key = tempKey(project.state);
    const log = new AuditLog(project.audit);
    for (let i = 0; i < 6; i++) log.append(gateEvent(i));
    const sealed = log.appendAndCheckpoint([gateEvent(6), gateEvent(7), gateEvent(8)], key);
    expect(sealed.events.map((e) => e.event.seq)).toEqual([6, 7, 8]);
    expect(sealed.checkpoint).toMatchObject({ tree_size: 9, root: log.root(9) });
    expect(log.checkpoints()).toEqual([sealed.checkpoint]);
    const written = lines(log.logPath);
    for (const { event, line, proof } of sealed.events) {
      expect(line).toBe(written[event.seq]);
      expect(proof).toMatchObject({ leaf_index: event.seq, tree_size: 9, root: sealed.checkpoint.root });
      expect(verifyInclusion(leafHash(line), event.seq, 9, proof.hashes.map(fromHex), fromHex(sealed.checkpoint.root))).toBe(true);
    }
    // The files it kept open for the hold are closed and current: the next append and a rebuild agree.
    log.append(gateEvent(9));
    const root10 = log.root();
    rmSync(join(project.audit, 'merkle'), { recursive: true });
    log.repair();
    expect(log.root()).toBe(root10);
    expect(verifyAudit(project.audit, [key.publicKey])).toMatchObject({ ok: true, events: 10, checkpoints: 1, covered: 9 });
  });

  it('rebuilds a deleted or damaged Merkle cache from the log on the next append', () => {
    const log = new AuditLog(project.audit);
    for (let i = 0; i < 20; i++) log.append(gateEvent(i));
    const root20 = log.root();
    rmSync(join(project.audit, 'merkle'), { recursive: true });
    expect(log.size()).toBe(0);
    log.repair();
    expect(log.size()).toBe(20);
    expect(log.root()).toBe(root20);
    writeFileSync(join(project.audit, 'merkle', 'level-01.bin'), Buffer.alloc(7));
    writeFileSync(join(project.audit, 'merkle', 'level-00.bin'), Buffer.alloc(32 * 3 + 5));
    log.append(gateEvent(20));
    expect(log.size()).toBe(21);
    const leaves = lines(log.logPath).map((l) => leafHash(l));
    expect(log.root()).toBe(rootFromLeaves(leaves).toString('hex'));
    expect(existsSync(join(project.audit, 'merkle', 'rebuilding'))).toBe(false);
  });

  it('catches the cache up when a writer died between the line and the tree', () => {
    const at = (i: number) => ({ ...gateEvent(i), time: `2025-01-01T00:00:0${i}.000Z` });
    const log = new AuditLog(project.audit);
    for (let i = 0; i < 3; i++) log.append(at(i));
    // What a writer killed after its write() leaves: one more line than the tree holds.
    const other = new AuditLog(join(project.state, 'scratch'));
    for (let i = 0; i < 4; i++) other.append(at(i));
    writeFileSync(log.logPath, readFileSync(other.logPath));
    const before = readFileSync(join(project.audit, 'merkle', 'level-00.bin'));
    log.repair();
    expect(log.size()).toBe(4);
    expect(
      readFileSync(join(project.audit, 'merkle', 'level-00.bin'))
        .subarray(0, 96)
        .equals(before),
    ).toBe(true);
    expect(log.root()).toBe(other.root());
  });

  it('appends in well under 5 ms each', () => {
    const log = new AuditLog(project.audit);
    log.append(gateEvent(0));
    const n = 500;
    const t0 = performance.now();
    for (let i = 1; i <= n; i++) log.append(gateEvent(i));
    const perAppend = (performance.now() - t0) / n;
    console.log(`[audit] append cost: ${(perAppend * 1000).toFixed(0)} µs per event over ${n} appends`);
    expect(log.size()).toBe(n + 1);
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
