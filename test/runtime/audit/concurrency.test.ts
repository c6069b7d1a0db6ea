import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { withLock } from '../../../src/runtime/audit/lock.js';
import type { AuditEvent } from '../../../src/runtime/audit/record.js';
import { verifyAudit } from '../../../src/runtime/audit/verify.js';
import { bundleAppendChild, exited, gateEvent, ready, spawnAppender, tempKey, tempProject } from './helpers.js';

let project: ReturnType<typeof tempProject>;
let childDir: string;
let script: string;
beforeAll(() => {
  childDir = mkdtempSync(join(tmpdir(), 'gh-child-'));
  script = bundleAppendChild(childDir);
});
afterAll(() => rmSync(childDir, { recursive: true, force: true }));
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.dispose());

/** A pid that certainly belongs to no running process: one of a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('concurrent writers', () => {
  it('8 processes × 500 appends make one unbroken chain of 4000 events', async () => {
    const writers = Array.from({ length: 8 }, (_, i) => spawnAppender(script, project.audit, 500, `w${i}`));
    const results = await Promise.all(writers.map(exited));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

    const key = tempKey(project.state);
    const log = new AuditLog(project.audit);
    log.checkpoint(key);
    const report = verifyAudit(project.audit, [key.publicKey]);
    expect(report).toMatchObject({ ok: true, events: 4000, size: 4000, checkpoints: 1, covered: 4000, problems: [] });

    const events = [...log.events()] as AuditEvent<'gate_decision'>[];
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 4000 }, (_, i) => i));
    for (let w = 0; w < 8; w++) {
      const mine = events.filter((e) => e.actor === `system:child-w${w}`).map((e) => Number(e.data.input_digest.split(':')[1]));
      expect(mine, `writer ${w}`).toEqual(Array.from({ length: 500 }, (_, i) => i));
    }
    expect(existsSync(log.lockPath)).toBe(false);
  });
});

describe('writers killed mid-append', () => {
  it('a writer SIGKILLed in a tight append loop leaves a log that verifies or names the cut line, and the next append heals it', async () => {
    const log = new AuditLog(project.audit);
    for (let round = 0; round < 5; round++) {
      const child = spawnAppender(script, project.audit, -1, `k${round}`);
      const done = exited(child);
      await ready(child);
      await new Promise((r) => setTimeout(r, 20 + round * 15));
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');

      const after = verifyAudit(project.audit, []);
      if (!after.ok) expect(after.problems).toEqual([expect.stringMatching(/interrupted append/)]);
      // The dead writer may have left its lock and a tree one leaf behind the log.
      const t0 = Date.now();
      log.append(gateEvent(round));
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(verifyAudit(project.audit, [])).toMatchObject({ ok: true, problems: [] });
      expect(log.size()).toBe(verifyAudit(project.audit, []).size);
    }
  });

  it('a hand-written partial line is cut off, recorded, and the chain continues', () => {
    const log = new AuditLog(project.audit);
    log.append(gateEvent(0));
    appendFileSync(log.logPath, '{"actor":"system:hook-gate","da');
    expect(verifyAudit(project.audit, []).first_bad).toEqual({ seq: 1, reason: expect.stringMatching(/^interrupted append: the log ends with 31 bytes/) as string });
    log.append(gateEvent(1));
    expect([...log.events()].map((e) => e.type)).toEqual(['gate_decision', 'audit_repaired', 'gate_decision']);
    expect(verifyAudit(project.audit, [])).toMatchObject({ ok: true, events: 3 });
  });
});

describe('the log lock', () => {
  it('takes over a lock left by a dead process', () => {
    const log = new AuditLog(project.audit);
    writeFileSync(log.lockPath, `${deadPid()} 0123456789abcdef\n`);
    const t0 = Date.now();
    log.append(gateEvent(0));
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(existsSync(log.lockPath)).toBe(false);
    expect(existsSync(`${log.lockPath}.steal`)).toBe(false);
  });

  it('takes over a lock whose owner was killed but not yet reaped (a zombie)', async () => {
    // The shell becomes `sleep 5`, which inherits the background child and never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((res) => parent.stdout.once('data', (d: Buffer) => res(d.toString()))));
      const isZombie = (): boolean => readFileSync(`/proc/${zombie}/stat`, 'utf8').includes(') Z ');
      for (let i = 0; i < 200 && !isZombie(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(isZombie()).toBe(true);
      const log = new AuditLog(project.audit);
      writeFileSync(log.lockPath, `${zombie} 0123456789abcdef\n`);
      const t0 = Date.now();
      log.append(gateEvent(0));
      expect(Date.now() - t0).toBeLessThan(1000);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('takes over a lock this pid left in an earlier life (pid reuse after a restart)', () => {
    const log = new AuditLog(project.audit);
    writeFileSync(log.lockPath, `${process.pid} 0123456789abcdef\n`);
    log.append(gateEvent(0));
    expect(log.size()).toBe(1);
  });

  it('takes over an ownerless lock file only once it is old enough not to be mid-creation', () => {
    const log = new AuditLog(project.audit);
    writeFileSync(log.lockPath, '');
    const old = new Date(Date.now() - 10_000);
    utimesSync(log.lockPath, old, old);
    log.append(gateEvent(0));
    expect(log.size()).toBe(1);
  });

  it('waits for a live owner and gives up with an Error that names the lock', () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      const file = join(project.audit, 'x.lock');
      writeFileSync(file, `${sleeper.pid} 0123456789abcdef\n`);
      const t0 = Date.now();
      expect(() => withLock(file, () => 1, 300)).toThrow(new RegExp(`timed out after 300 ms waiting for the lock .*x\\.lock held by pid ${sleeper.pid}`));
      expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
      expect(readFileSync(file, 'utf8')).toBe(`${sleeper.pid} 0123456789abcdef\n`);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('refuses to be taken twice by the same process', () => {
    const file = join(project.audit, 'y.lock');
    expect(() => withLock(file, () => withLock(file, () => 1))).toThrow(/already held by this process/);
    expect(existsSync(file)).toBe(false);
  });
});
