import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SigningKey } from '../../../src/runtime/keys.js';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { sealEvent, type AuditEvent } from '../../../src/runtime/audit/record.js';
import { verifyAudit } from '../../../src/runtime/audit/verify.js';
import { gateEvent, tempKey, tempProject } from './helpers.js';

let project: ReturnType<typeof tempProject>;
let key: SigningKey;
let log: AuditLog;

// 30 events; checkpoints at 10 and 20; events 20..29 are past the latest checkpoint.
beforeEach(() => {
  project = tempProject();
  key = tempKey(project.state);
  log = new AuditLog(project.audit);
  for (let i = 0; i < 30; i++) {
    log.append(gateEvent(i));
    if (i === 9 || i === 19) log.checkpoint(key);
  }
});
afterEach(() => project.dispose());

const readLines = (): string[] => readFileSync(log.logPath, 'utf8').split('\n').slice(0, -1);
const writeLines = (ls: string[]): void => writeFileSync(log.logPath, ls.map((l) => `${l}\n`).join(''));
const verify = () => verifyAudit(project.audit, [key.publicKey]);

/** What a careful forger does: renumber and re-hash every event so the chain is whole again. */
function rechain(events: AuditEvent[]): string[] {
  let prev = '0'.repeat(64);
  return events.map((e, seq) => {
    const { line, event } = sealEvent({ type: e.type, actor: e.actor, session_id: e.session_id, data: e.data, time: e.time }, seq, prev);
    prev = event.hash;
    return line;
  });
}
const parsed = (): AuditEvent[] => readLines().map((l) => JSON.parse(l) as AuditEvent);

describe('verifyAudit on an intact log', () => {
  it('passes, and says which events only the hash chain protects', () => {
    const r = verify();
    expect(r).toMatchObject({ ok: true, events: 30, size: 30, checkpoints: 2, covered: 20, first_bad: null, problems: [] });
  });
});

describe('verifyAudit finds tampering', () => {
  it('names an edited line by its hash', () => {
    const ls = readLines();
    ls[7] = ls[7]!.replace('"decision":"allow"', '"decision":"block"');
    writeLines(ls);
    const r = verify();
    expect(r.ok).toBe(false);
    expect(r.first_bad).toEqual({ seq: 7, reason: expect.stringMatching(/hash does not match its content/) as string });
    expect(r.problems.some((p) => /checkpoint #1 \(tree size 10\).*does not match the log: an event in seq 0\.\.9/.test(p))).toBe(true);
  });

  it('names the broken link when an edited line was given a fresh hash', () => {
    const events = parsed();
    const forged = rechain(events.slice(0, 8).map((e, i) => (i === 7 ? { ...e, actor: 'os-user:mallory' } : e)));
    writeLines([...forged, ...readLines().slice(8)]);
    const r = verify();
    expect(r.first_bad).toEqual({ seq: 8, reason: expect.stringMatching(/prev_hash does not match the hash of seq 7: the chain is broken here/) as string });
  });

  it('bounds a fully re-chained edit by the checkpoints around it', () => {
    const events = parsed();
    events[15] = { ...events[15]!, data: { ...(events[15]!.data as AuditEvent<'gate_decision'>['data']), decision: 'allow' } } as AuditEvent;
    events[15].actor = 'os-user:mallory';
    writeLines(rechain(events));
    const r = verify();
    expect(r.ok).toBe(false);
    expect(r.checkpoints).toBe(1);
    expect(r.first_bad).toEqual({ seq: 10, reason: expect.stringMatching(/checkpoint #2 \(tree size 20\).*an event in seq 10\.\.19 was changed/) as string });
  });

  it('names a line rewritten by another JSON writer', () => {
    const ls = readLines();
    const e = JSON.parse(ls[3]!) as Record<string, unknown>;
    ls[3] = JSON.stringify({ seq: e.seq, ...e });
    writeLines(ls);
    expect(verify().first_bad).toEqual({ seq: 3, reason: expect.stringMatching(/not in canonical form/) as string });
  });

  it('names a line that is not an event at all', () => {
    const ls = readLines();
    ls[2] = 'garbage';
    ls[5] = JSON.stringify({ ...(JSON.parse(ls[5]!) as object), type: 'made_up' });
    writeLines(ls);
    const r = verify();
    expect(r.problems.slice(0, 2)).toEqual(['seq 2: the line is not a JSON object', 'seq 5: type "made_up" is not a registered event type']);
  });

  it('names a line whose bytes are not UTF-8 even where its text would match', () => {
    const bytes = readFileSync(log.logPath);
    const at = bytes.indexOf('src/file-6.ts');
    bytes[at] = 0xff;
    writeFileSync(log.logPath, bytes);
    expect(verify().first_bad).toEqual({ seq: 6, reason: expect.stringMatching(/the line is not valid UTF-8/) as string });
  });

  it('names a deleted line', () => {
    const ls = readLines();
    ls.splice(12, 1);
    writeLines(ls);
    expect(verify().first_bad).toEqual({ seq: 12, reason: expect.stringMatching(/seq 13 follows seq 11: events were removed or reordered/) as string });
  });

  it('names two swapped lines', () => {
    const ls = readLines();
    [ls[4], ls[5]] = [ls[5]!, ls[4]!];
    writeLines(ls);
    const r = verify();
    expect(r.first_bad).toEqual({ seq: 4, reason: expect.stringMatching(/seq 5 follows seq 3/) as string });
    expect(r.problems.slice(0, 2)).toEqual(['seq 4: seq 5 follows seq 3: events were removed or reordered here', 'seq 5: seq 4 follows seq 5: events were reordered or duplicated here']);
    expect(r.problems.slice(2)).toEqual([expect.stringMatching(/^checkpoint #1 \(tree size 10\)/), expect.stringMatching(/^checkpoint #2 \(tree size 20\)/)]);
  });

  it('names a truncated tail that a checkpoint covered', () => {
    writeLines(readLines().slice(0, 15));
    const r = verify();
    expect(r.first_bad).toEqual({
      seq: 15,
      reason: expect.stringMatching(/the log has 15 events but checkpoint #2 \(tree size 20\), signed by gatehouse-[0-9a-f]{16}, covers 20: events 15\.\.19 were removed/) as string,
    });
  });

  it('cannot see a truncation past the latest checkpoint, and says how far it can see', () => {
    writeLines(readLines().slice(0, 25));
    expect(verify()).toMatchObject({ ok: true, size: 25, covered: 20 });
  });

  it('catches an appended line that breaks the chain', () => {
    const { line } = sealEvent(gateEvent(99), 30, 'f'.repeat(64));
    appendFileSync(log.logPath, `${line}\n`);
    expect(verify().first_bad).toEqual({ seq: 30, reason: expect.stringMatching(/prev_hash does not match the hash of seq 29/) as string });
  });

  it('cannot tell a well-chained appended line from a real one until a checkpoint covers it', () => {
    const last = parsed().at(-1)!;
    const { line } = sealEvent({ ...gateEvent(99), actor: 'os-user:mallory' }, 30, last.hash);
    appendFileSync(log.logPath, `${line}\n`);
    expect(verify()).toMatchObject({ ok: true, size: 31, covered: 20 });
  });

  it('rejects a checkpoint whose signed text was altered', () => {
    const cps = readFileSync(log.checkpointPath, 'utf8').split('\n');
    const rec = JSON.parse(cps[1]!) as { note: string; tree_size: number };
    const other = log.root(19);
    rec.note = rec.note.replace(/\n20\n[^\n]+\n/, `\n19\n${Buffer.from(other, 'hex').toString('base64')}\n`);
    cps[1] = JSON.stringify(rec);
    writeFileSync(log.checkpointPath, cps.join('\n'));
    const r = verify();
    expect(r.ok).toBe(false);
    expect(r.checkpoints).toBe(1);
    expect(r.first_bad).toEqual({ seq: null, reason: expect.stringMatching(/checkpoint #2 \(tree size 19\): the signature by gatehouse-\w+ does not verify/) as string });
  });

  it('reports a checkpoint record whose fields disagree with its signed note', () => {
    const cps = readFileSync(log.checkpointPath, 'utf8').split('\n');
    cps[0] = cps[0]!.replace('"tree_size":10', '"tree_size":11');
    writeFileSync(log.checkpointPath, cps.join('\n'));
    expect(verify().problems).toEqual([expect.stringMatching(/checkpoint #1 \(tree size 10\): the record's tree_size or root differs from its signed note/)]);
  });

  it('rejects a checkpoint replaced by one signed with another key', () => {
    const forger = tempKey(project.state);
    const cps = readFileSync(log.checkpointPath, 'utf8').split('\n');
    writeFileSync(log.checkpointPath, `${cps[0]}\n`);
    log.checkpoint(forger);
    const r = verify();
    expect(r.checkpoints).toBe(1);
    expect(r.first_bad?.reason).toMatch(new RegExp(`checkpoint #2 \\(tree size 30\\) is signed only by ${forger.name}, which is not a trusted key`));
  });

  it('rejects a log rewritten and re-signed under another key', () => {
    const events = parsed();
    events.splice(3, 1);
    writeLines(rechain(events));
    writeFileSync(log.checkpointPath, '');
    const forger = tempKey(project.state);
    const forged = new AuditLog(project.audit);
    forged.repair();
    forged.checkpoint(forger);
    const r = verify();
    expect(r).toMatchObject({ ok: false, checkpoints: 0, covered: 0 });
    expect(r.problems).toEqual([expect.stringMatching(/signed only by gatehouse-\w+, which is not a trusted key: the log was re-signed/)]);
    expect(verifyAudit(project.audit, [forger.publicKey]).ok).toBe(true);
  });

  it('reports a rolled-back checkpoint series', () => {
    const cps = readFileSync(log.checkpointPath, 'utf8').split('\n');
    writeFileSync(log.checkpointPath, `${cps[1]}\n${cps[0]}\n`);
    expect(verify().problems).toEqual([expect.stringMatching(/checkpoint #2 \(tree size 10\) is smaller than checkpoint #1 \(tree size 20\): the log was rolled back/)]);
  });

  it('reports a torn last line as an interrupted append, which the next append repairs', () => {
    const partial = '{"actor":"system:hook-gate","data":{"decis';
    appendFileSync(log.logPath, partial);
    const r = verify();
    expect(r).toMatchObject({ ok: false, events: 30, size: 30 });
    expect(r.first_bad).toEqual({ seq: 30, reason: expect.stringMatching(new RegExp(`interrupted append: the log ends with ${partial.length} bytes after its last newline`)) as string });
    const next = log.append(gateEvent(30));
    expect(next.seq).toBe(31);
    const repaired = log.tail(2)[0]!;
    expect(repaired).toMatchObject({ seq: 30, type: 'audit_repaired', actor: 'system:audit-log', data: { dropped_bytes: partial.length } });
    expect((repaired as AuditEvent<'audit_repaired'>).data.dropped_sha256).toBe(sha256(partial));
    expect(verify()).toMatchObject({ ok: true, events: 32 });
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
