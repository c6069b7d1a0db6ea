// The header's summary of `GET /api/doctor`.
import { describe, expect, it } from 'vitest';
import { describeDoctor } from '../../src/web/doctor-status.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('describeDoctor', () => {
  it('is hidden (null) until doctor has run', () => {
    expect(describeDoctor([], NOW)).toBeNull();
  });

  it('names each agent ok or BROKEN, the untested version, and the age of the oldest result', () => {
    const d = describeDoctor(
      [
        { agent: 'claude', checked_at: '2025-06-01T11:55:00Z', version: '2.1.328', tested: true, gates: { write_gate: 'blocking', completion_gate: 'blocking' } },
        { agent: 'codex', checked_at: '2025-06-01T11:00:00Z', version: '0.170.0', tested: false, gates: { write_gate: 'BROKEN', completion_gate: 'blocking' } },
        { agent: 'qwen', checked_at: '2025-06-01T11:58:00Z', version: '0.25.0', tested: false, gates: { write_gate: 'blocking' } },
      ],
      NOW,
    );
    expect(d?.ok).toBe(false);
    expect(d?.text).toBe('doctor: claude ok, codex BROKEN, qwen ok (untested 0.25.0), 1h ago');
    expect(d?.detail).toContain('codex 0.170.0: write_gate BROKEN, completion_gate blocking (checked 2025-06-01T11:00:00Z)');
    expect(d?.detail).toContain('Run `gatehouse doctor` to check again.');
  });
});
