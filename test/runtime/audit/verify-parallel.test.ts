// The parallel verify (real worker threads, the built dist/audit-verify-worker.js) reports exactly
// what the serial one does: on an intact log, and on each kind of tampering.
import { appendFileSync, cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SigningKey } from '../../../src/runtime/keys.js';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { finishVerify, planVerify, verifyAudit } from '../../../src/runtime/audit/verify.js';
import { scanLogParallel, verifyAuditParallel, verifyThreads } from '../../../src/runtime/audit/verify-parallel.js';
import { gateEvent, tempKey, tempProject } from './helpers.js';

const WORKER = resolve('dist/audit-verify-worker.js');
// Several whole ranges of 4,096 lines; the size where verify goes parallel is lowered for it.
const EVENTS = 18_000;
const MIN_BYTES = 1 << 20;

let project: ReturnType<typeof tempProject>;
let key: SigningKey;

beforeAll(() => {
  project = tempProject();
  key = tempKey(project.state);
  const log = new AuditLog(project.audit);
  for (let i = 0; i < EVENTS; i++) {
    log.append(gateEvent(i));
    if ((i + 1) % 5_000 === 0) log.checkpoint(key);
  }
});
afterAll(() => project.dispose());

/** A copy of the intact audit folder, changed by `edit` (given the log's lines). */
function tampered(name: string, edit: (lines: string[]) => string[] | string): string {
  const dir = join(project.state, `copy-${name}`);
  cpSync(project.audit, dir, { recursive: true });
  const file = join(dir, 'log.jsonl');
  const out = edit(readFileSync(file, 'utf8').split('\n').slice(0, -1));
  writeFileSync(file, typeof out === 'string' ? out : `${out.join('\n')}\n`);
  return dir;
}

async function both(dir: string): Promise<{ serial: unknown; parallel: unknown }> {
  return { serial: verifyAudit(dir, [key.publicKey]), parallel: await verifyAuditParallel(dir, [key.publicKey], { threads: 2, workerFile: WORKER, minBytes: MIN_BYTES }) };
}

describe('parallel audit verify', () => {
  it('agrees with the serial verify on an intact log, verified on more than one thread', async () => {
    expect(verifyThreads(statSync(join(project.audit, 'log.jsonl')).size, 2, MIN_BYTES)).toBe(2);
    const { serial, parallel } = await both(project.audit);
    expect(serial).toMatchObject({ ok: true, events: EVENTS, checkpoints: 3 });
    expect(parallel).toEqual(serial);
  });

  it('agrees on a log whose ranges are ASCII in places and other UTF-8 in others, without falling back', async () => {
    const mixed = tempProject();
    try {
      const log = new AuditLog(mixed.audit);
      // The first ranges ASCII only, the later ones with 2-, 3- and 4-byte characters here and there.
      for (let i = 0; i < 12_000; i++) {
        const e = gateEvent(i);
        if (i > 6_000 && i % 3 === 0) e.data.targets = [`src/caf\u00e9-\u27e8${i}\u27e9-\u{1f512}.ts`];
        log.append(e);
        if ((i + 1) % 5_000 === 0) log.checkpoint(key);
      }
      const file = join(mixed.audit, 'log.jsonl');
      const plan = planVerify(mixed.audit, [key.publicKey]);
      const scan = await scanLogParallel(file, statSync(file).size, plan, 2, WORKER);
      expect(scan).not.toBeNull();
      const serial = verifyAudit(mixed.audit, [key.publicKey]);
      expect(serial).toMatchObject({ ok: true, events: 12_000 });
      expect(finishVerify(plan, scan!)).toEqual(serial);
    } finally {
      mixed.dispose();
    }
  });

  it("joins the workers' subtree roots into the serial scan's tree, with checkpoints inside ranges (no fallback)", async () => {
    // Checkpoints at 5,000, 10,000 and 15,000 end inside ranges of 4,096 lines, and their proofs
    // need nodes below a range's level: the join must reach each exactly.
    const file = join(project.audit, 'log.jsonl');
    const plan = planVerify(project.audit, [key.publicKey]);
    const scan = await scanLogParallel(file, statSync(file).size, plan, 2, WORKER);
    expect(scan).not.toBeNull();
    expect(finishVerify(plan, scan!)).toEqual(verifyAudit(project.audit, [key.publicKey]));
  });

  it('agrees on more threads than cores, and on one', async () => {
    const serial = verifyAudit(project.audit, [key.publicKey]);
    for (const threads of [1, 3, 5]) expect(await verifyAuditParallel(project.audit, [key.publicKey], { threads, workerFile: WORKER, minBytes: MIN_BYTES })).toEqual(serial);
  });

  it.each([
    ['an edited event', (l: string[]) => l.map((x, i) => (i === 9_000 ? x.replace('file-9000', 'file-9001') : x))],
    ['a deleted event', (l: string[]) => l.filter((_x, i) => i !== 12_345)],
    ['two reordered events', (l: string[]) => l.map((x, i) => (i === 4_100 ? l[4_101]! : i === 4_101 ? l[4_100]! : x))],
    ['a removed tail under a checkpoint', (l: string[]) => l.slice(0, 14_000)],
    ['a torn last line', (l: string[]) => `${l.join('\n')}\n{"actor":"sys`],
    ['a line that is not JSON', (l: string[]) => l.map((x, i) => (i === 17_999 ? 'not json' : x))],
  ])('reports %s exactly as the serial verify does', async (name, edit) => {
    const { serial, parallel } = await both(tampered(name.replace(/ /g, '-'), edit));
    expect((serial as { ok: boolean }).ok).toBe(false);
    expect(parallel).toEqual(serial);
  });

  it('reports a tampered checkpoint exactly as the serial verify does', async () => {
    const dir = join(project.state, 'copy-checkpoint');
    cpSync(project.audit, dir, { recursive: true });
    const file = join(dir, 'checkpoints.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = lines[1]!.replace(/"tree_size":\d+/, '"tree_size":1');
    writeFileSync(file, lines.join('\n'));
    appendFileSync(join(dir, 'log.jsonl'), '');
    const { serial, parallel } = await both(dir);
    expect(parallel).toEqual(serial);
  });
});
