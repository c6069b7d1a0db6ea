import { describe, expect, it } from 'vitest';
import { MAX_LABEL_CHARS, newApprovalId, newNonce, parsePending, parseResolution } from '../../../src/runtime/approvals/record.js';

const id = newApprovalId(new Date());
const pending = {
  id,
  nonce: newNonce(),
  session_id: 's1',
  agent: 'claude',
  tool: 'Bash',
  summary: 'npm publish',
  created_at: '2026-12-01T00:00:00.000Z',
  expires_at: '2026-12-01T00:10:00.000Z',
  pid: 4242,
  always: null,
};
const resolution = { id, decision: 'allow', reason: null, principal: { id: 'os-user:alice', auth: 'local-shell' }, resolved_at: '2026-12-01T00:01:00.000Z' };

describe('approval records read back from disk', () => {
  it('reads back what the queue writes, without keys it does not know', () => {
    expect(parsePending(JSON.stringify({ ...pending, extra: 1 }), id)).toEqual({ ok: true, value: pending });
    expect(parseResolution(JSON.stringify(resolution), id)).toEqual({ ok: true, value: resolution });
  });

  it('says which field is wrong and how', () => {
    const reason = (r: { ok: boolean; reason?: string }) => (r.ok ? 'ok' : r.reason);
    expect(reason(parsePending(JSON.stringify({ ...pending, id: 'ap-x-00000000' }), id))).toBe(`pending approval ${id} is corrupt: id does not match its file name ${id}`);
    expect(reason(parsePending(JSON.stringify({ ...pending, nonce: 'ABC' }), id))).toBe(`pending approval ${id} is corrupt: nonce must be 32 lowercase hex digits`);
    expect(reason(parsePending(JSON.stringify({ ...pending, tool: 'x'.repeat(MAX_LABEL_CHARS + 1) }), id))).toBe(
      `pending approval ${id} is corrupt: tool must be a string of at most ${MAX_LABEL_CHARS} characters`,
    );
    expect(reason(parsePending(JSON.stringify({ ...pending, pid: 0 }), id))).toBe(`pending approval ${id} is corrupt: pid must be a positive integer`);
    expect(reason(parsePending(JSON.stringify({ ...pending, always: { tool: 'Bash', on: 'everything', paths: [] } }), id))).toBe(
      `pending approval ${id} is corrupt: always must be null or {tool, on, paths}`,
    );
    expect(reason(parsePending(JSON.stringify({ ...pending, expires_at: 'soon' }), id))).toBe(`pending approval ${id} is corrupt: expires_at must be an ISO date`);
    expect(reason(parseResolution(JSON.stringify({ ...resolution, decision: 'maybe' }), id))).toBe(`resolution of ${id} is corrupt: decision must be one of allow, reject, always, always-project`);
    expect(reason(parseResolution(JSON.stringify({ ...resolution, expired: 'yes' }), id))).toBe(`resolution of ${id} is corrupt: expired must be true or false`);
    expect(reason(parseResolution('[1]', id))).toBe(`resolution of ${id} is not a JSON object`);
  });
});
