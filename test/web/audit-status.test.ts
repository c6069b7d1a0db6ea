// The header's summary of `GET /api/audit/status`.
import { describe, expect, it } from 'vitest';
import { describeAudit } from '../../src/web/audit-status.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('describeAudit', () => {
  it('says the chain verified, with its size and last checkpoint', () => {
    const s = { ok: true, events: 42, checkpoints: 3, root: 'ab', last_checkpoint: { tree_size: 40, time: '2025-06-01T11:55:00Z' }, first_bad: null };
    expect(describeAudit(s, NOW)).toMatchObject({ ok: true, text: 'audit: verified, 42 events, checkpoint at 40, 5m ago' });
  });

  it('says when there is no checkpoint yet', () => {
    const s = { ok: true, events: 0, checkpoints: 0, root: '', last_checkpoint: null, first_bad: null };
    expect(describeAudit(s, NOW).text).toBe('audit: verified, 0 events, no checkpoint yet');
  });

  it('names the first bad event of a chain that does not verify, and why', () => {
    const s = { ok: false, events: 42, checkpoints: 3, root: 'ab', last_checkpoint: null, first_bad: { seq: 17, reason: 'the hash does not match its content.' } };
    expect(describeAudit(s, NOW)).toEqual({
      ok: false,
      text: 'audit: verification FAILED at event seq 17 of 42: the hash does not match its content',
      detail: 'First problem at event seq 17: the hash does not match its content. Run `gatehouse audit verify` in the project to list every problem.',
    });
  });

  it('says when only a checkpoint is wrong', () => {
    const s = { ok: false, events: 5, checkpoints: 0, root: 'ab', last_checkpoint: null, first_bad: { seq: null, reason: 'checkpoint #1: the signature does not verify' } };
    expect(describeAudit(s, NOW).text).toBe('audit: verification FAILED in the checkpoints (5 events): checkpoint #1: the signature does not verify');
  });

  it('cuts a long reason in the badge and keeps it whole in the detail', () => {
    const reason = `the line is ${'very '.repeat(40)}long`;
    const d = describeAudit({ ok: false, events: 1, checkpoints: 0, root: '', last_checkpoint: null, first_bad: { seq: 0, reason } }, NOW);
    expect(d.text.length).toBeLessThan(200);
    expect(d.text.endsWith('…')).toBe(true);
    expect(d.detail).toContain(reason);
  });

  it('never prints an object: a bare seq from an older server still reads well', () => {
    const s = { ok: false, events: 3, checkpoints: 0, root: '', last_checkpoint: null, first_bad: 2 as unknown as null };
    expect(describeAudit(s, NOW).text).toBe('audit: verification FAILED at event seq 2 of 3');
  });
});
