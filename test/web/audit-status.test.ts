// The header's summary of `GET /api/audit/status`.
import { describe, expect, it } from 'vitest';
import { describeAudit } from '../../src/web/audit-status.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('describeAudit', () => {
  it('says the chain verified, with its size and last checkpoint', () => {
    const s = { ok: true, events: 42, checkpoints: 3, root: 'ab', last_checkpoint: { tree_size: 40, time: '2025-06-01T11:55:00Z' }, first_bad: null };
    expect(describeAudit(s, NOW)).toEqual({ ok: true, text: 'audit: verified, 42 events, checkpoint at 40, 5m ago' });
  });

  it('says when there is no checkpoint yet', () => {
    const s = { ok: true, events: 0, checkpoints: 0, root: '', last_checkpoint: null, first_bad: null };
    expect(describeAudit(s, NOW).text).toBe('audit: verified, 0 events, no checkpoint yet');
  });

  it('names the first bad event of a chain that does not verify', () => {
    const s = { ok: false, events: 42, checkpoints: 3, root: 'ab', last_checkpoint: null, first_bad: 17 };
    expect(describeAudit(s, NOW)).toEqual({ ok: false, text: 'audit: verification FAILED at event 17 (42 events)' });
  });
});
