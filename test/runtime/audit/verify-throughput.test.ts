import { closeSync, openSync, writeSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { GENESIS_HASH, sealEvent } from '../../../src/runtime/audit/record.js';
import { verifyAudit } from '../../../src/runtime/audit/verify.js';
import { gateEvent, tempKey, tempProject } from './helpers.js';

const EVENTS = 100_000;
const project = tempProject();
afterAll(() => project.dispose());

describe('verifyAudit throughput', () => {
  it(`streams a ${EVENTS}-event log (timing printed, never asserted)`, () => {
    // Written with the log's own sealing code, but in one go instead of 100k locked appends.
    const log = new AuditLog(project.audit);
    const fd = openSync(log.logPath, 'w');
    let prev = GENESIS_HASH;
    let batch = '';
    for (let seq = 0; seq < EVENTS; seq++) {
      const { line, event } = sealEvent({ ...gateEvent(seq, `session-${seq % 7}`), time: '2025-06-01T12:00:00.000Z' }, seq, prev);
      prev = event.hash;
      batch += `${line}\n`;
      if (batch.length > 1 << 20) {
        writeSync(fd, batch);
        batch = '';
      }
    }
    writeSync(fd, batch);
    closeSync(fd);
    const key = tempKey(project.state);
    const t0 = performance.now();
    log.repair();
    const rebuildMs = performance.now() - t0;
    log.checkpoint(key);

    // The first pass includes JIT warm-up; a long-running verifier sees the second.
    for (const pass of ['cold', 'warm']) {
      const t1 = performance.now();
      const r = verifyAudit(project.audit, [key.publicKey]);
      const ms = performance.now() - t1;
      console.log(`[audit] verify (${pass}): ${EVENTS} events in ${ms.toFixed(0)} ms = ${Math.round(EVENTS / (ms / 1000))} events/s`);
      expect(r).toMatchObject({ ok: true, events: EVENTS, checkpoints: 1 });
    }
    console.log(`[audit] Merkle cache rebuild of ${EVENTS} events: ${rebuildMs.toFixed(0)} ms`);
  }, 120_000);
});
