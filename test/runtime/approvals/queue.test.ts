import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APPROVAL_ID_RE, ApprovalQueue, RESOLVED_RETENTION_MS, TTL_EXPIRY_PRINCIPAL } from '../../../src/runtime/approvals/index.js';
import { MAX_SUMMARY_CHARS } from '../../../src/runtime/approvals/record.js';
import { alice, request, tempProject, tokenBob } from './helpers.js';

let project: ReturnType<typeof tempProject>;
let q: ApprovalQueue;
beforeEach(() => {
  project = tempProject();
  q = new ApprovalQueue(project.state);
});
afterEach(() => project.dispose());

const pendingFile = (id: string): string => join(project.state, 'approvals', 'pending', `${id}.json`);
const resolvedFile = (id: string): string => join(project.state, 'approvals', 'resolved', `${id}.json`);

describe('enqueue, list, get', () => {
  it('files a request with a safe id, a 128-bit nonce, this pid and its expiry', () => {
    const p = q.enqueue(request({ ttlSeconds: 90 }));
    expect(p.id).toMatch(APPROVAL_ID_RE);
    expect(p.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(p).toMatchObject({ session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'npm publish', pid: process.pid });
    expect(Date.parse(p.expires_at) - Date.parse(p.created_at)).toBe(90_000);
    expect(JSON.parse(readFileSync(pendingFile(p.id), 'utf8'))).toEqual(p);
    expect(q.get(p.id)).toEqual({ pending: p, resolution: null, problem: null });
  });

  it('lists open requests oldest first, filters by session, and names the newest as latest', () => {
    let t = Date.parse('2030-01-01T00:00:00Z');
    const clocked = new ApprovalQueue(project.state, () => new Date(t));
    const a = clocked.enqueue(request({ session_id: 'one' }));
    t += 1000;
    const b = clocked.enqueue(request({ session_id: 'two' }));
    t += 1000;
    const c = clocked.enqueue(request({ session_id: 'one' }));
    expect(clocked.list().map((p) => p.id)).toEqual([a.id, b.id, c.id]);
    expect(clocked.list({ session: 'one' }).map((p) => p.id)).toEqual([a.id, c.id]);
    expect(clocked.latest()?.id).toBe(c.id);

    expect(clocked.resolve(c.id, { decision: 'allow', principal: alice }).ok).toBe(true);
    expect(clocked.list().map((p) => p.id)).toEqual([a.id, b.id]);
    t += 60_000;
    expect(clocked.list()).toEqual([]);
    expect(clocked.latest()).toBeNull();
  });

  it('lists a burst filed in one millisecond in the order it was filed, so a burst message reads oldest first', () => {
    const t = Date.parse('2030-01-01T00:00:00Z');
    const clocked = new ApprovalQueue(project.state, () => new Date(t));
    const ids = Array.from({ length: 40 }, () => clocked.enqueue(request()).id);
    expect(clocked.list().map((p) => p.id)).toEqual(ids);
    expect(clocked.latest()?.id).toBe(ids.at(-1));
    for (const id of ids) expect(id).toMatch(APPROVAL_ID_RE);
  });

  it('keeps a summary a person may review whole, and cuts (never refuses) a longer one with a mark', () => {
    const whole = q.enqueue(request({ summary: 'x'.repeat(MAX_SUMMARY_CHARS) }));
    expect(whole.summary).toBe('x'.repeat(MAX_SUMMARY_CHARS));
    const p = q.enqueue(request({ summary: 'x'.repeat(MAX_SUMMARY_CHARS + 10) }));
    expect(p.summary.length).toBe(MAX_SUMMARY_CHARS);
    expect(p.summary.endsWith('…')).toBe(true);
    expect(q.get(p.id).pending).toEqual(p);
  });
});

describe('resolve', () => {
  it('records the answer and who gave it; a second answer is refused as already resolved', () => {
    const p = q.enqueue(request());
    const r = q.resolve(p.id, { decision: 'reject', reason: 'not today', principal: alice });
    expect(r).toMatchObject({ ok: true, value: { id: p.id, decision: 'reject', reason: 'not today', principal: alice } });
    expect(q.get(p.id).resolution).toEqual(r.ok && r.value);
    const again = q.resolve(p.id, { decision: 'allow', principal: alice });
    expect(again).toMatchObject({ ok: false, error: { code: 'already_resolved' } });
    expect(!again.ok && again.error.message).toContain('reject by os-user:alice');
  });

  it('stores an always decision as such (the caller adds the rule)', () => {
    const p = q.enqueue(request());
    expect(q.resolve(p.id, { decision: 'always', principal: alice })).toMatchObject({ ok: true, value: { decision: 'always', reason: null } });
    expect(q.get(p.id).resolution?.decision).toBe('always');
  });

  it('stores only the fields of the principal, nothing else the caller attached', () => {
    const p = q.enqueue(request());
    const leaky = { ...tokenBob, secret: 'tok_123' };
    expect(q.resolve(p.id, { decision: 'allow', nonce: p.nonce, principal: leaky }).ok).toBe(true);
    expect(readFileSync(resolvedFile(p.id), 'utf8')).not.toContain('tok_123');
  });

  it('refuses a wrong nonce, and an HTTP principal that brings none', () => {
    const p = q.enqueue(request());
    expect(q.resolve(p.id, { decision: 'allow', nonce: '0'.repeat(32), principal: alice })).toMatchObject({ ok: false, error: { code: 'nonce_mismatch' } });
    expect(q.resolve(p.id, { decision: 'allow', nonce: 'short', principal: tokenBob })).toMatchObject({ ok: false, error: { code: 'nonce_mismatch' } });
    expect(q.resolve(p.id, { decision: 'allow', principal: tokenBob })).toMatchObject({ ok: false, error: { code: 'nonce_mismatch' } });
    expect(q.resolve(p.id, { decision: 'allow', principal: { id: 'dashboard-operator:ana', auth: 'access-token' } })).toMatchObject({ ok: false, error: { code: 'nonce_mismatch' } });
    expect(existsSync(resolvedFile(p.id))).toBe(false);
    expect(q.resolve(p.id, { decision: 'allow', nonce: p.nonce, principal: tokenBob })).toMatchObject({ ok: true, value: { principal: tokenBob } });
  });

  it('reports an unknown id as not found', () => {
    expect(q.resolve('ap-000000000-0123456789ab', { decision: 'allow', principal: alice })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('refuses ids that could name a path elsewhere, without touching the disk', () => {
    const outside = join(project.state, 'x.json');
    writeFileSync(outside, '{}');
    for (const id of ['../x', '../../x', 'ap-1-../../x', 'ap-000000000-0123456789ab/../../x', '', '.', 'AP-000000000-0123456789ab', 'ap-000000000-0123456789ab\n']) {
      expect(q.resolve(id, { decision: 'allow', principal: alice }), id).toMatchObject({ ok: false, error: { code: 'bad_id' } });
      expect(q.get(id).problem?.code, id).toBe('bad_id');
    }
    return expect(q.waitFor('../x', {})).rejects.toThrow(/not an approval id/);
  });

  it('refuses a reserved system: principal for a human auth, and principals that cannot be named', () => {
    const p = q.enqueue(request());
    const bad = [
      { ...TTL_EXPIRY_PRINCIPAL, auth: 'local-shell' as const },
      { id: 'system:gatehouse', auth: 'scoped-token' as const, grant: 'approvals' },
      { id: 'os-user:', auth: 'local-shell' as const },
      { id: 'mallory', auth: 'sudo' as 'local-shell' },
    ];
    for (const principal of bad) {
      expect(q.resolve(p.id, { decision: 'allow', principal }), principal.id).toMatchObject({ ok: false, error: { code: 'bad_principal' } });
    }
    expect(q.get(p.id).resolution).toBeNull();
  });

  it('refuses a decision that is not allow, reject or always', () => {
    const p = q.enqueue(request());
    expect(q.resolve(p.id, { decision: 'maybe' as 'allow', principal: alice })).toMatchObject({ ok: false, error: { code: 'bad_decision' } });
  });

  it('answers a late resolver with the expiry denial, which it records', () => {
    const p = q.enqueue(request({ ttlSeconds: 1 }));
    const late = new ApprovalQueue(project.state, () => new Date(Date.parse(p.expires_at) + 1));
    const r = late.resolve(p.id, { decision: 'allow', principal: alice });
    expect(r).toMatchObject({ ok: false, error: { code: 'already_resolved' } });
    expect(!r.ok && r.error.message).toContain('timed out');
    expect(q.get(p.id).resolution).toMatchObject({ decision: 'reject', principal: TTL_EXPIRY_PRINCIPAL, expired: true });
  });
});

describe('records read back from disk', () => {
  it('skips a corrupt request in list and reports it in get and resolve', () => {
    const good = q.enqueue(request());
    const broken = q.enqueue(request());
    writeFileSync(pendingFile(broken.id), '{"id": "');
    const wrongId = q.enqueue(request());
    writeFileSync(pendingFile(wrongId.id), JSON.stringify({ ...wrongId, id: good.id }));
    writeFileSync(join(project.state, 'approvals', 'pending', 'notes.txt'), 'hello');

    expect(q.list().map((p) => p.id)).toEqual([good.id]);
    expect(q.get(broken.id)).toMatchObject({ pending: null, problem: { code: 'corrupt_pending' } });
    expect(q.get(wrongId.id).problem?.message).toMatch(/does not match its file name/);
    expect(q.resolve(broken.id, { decision: 'allow', principal: alice })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringMatching(/not valid JSON/) } });
  });

  it('reports a corrupt or forged resolution, and a waiting hook treats it as a denial', async () => {
    const p = q.enqueue(request());
    writeFileSync(
      resolvedFile(p.id),
      JSON.stringify({ id: p.id, decision: 'allow', reason: null, principal: { id: 'system:approval-queue/ttl-expiry', auth: 'local-shell' }, resolved_at: new Date().toISOString() }),
    );
    expect(q.get(p.id)).toMatchObject({ pending: p, resolution: null, problem: { code: 'corrupt_resolution' } });
    expect(q.list()).toEqual([]);
    const answer = await q.waitFor(p.id, {});
    expect(answer).toMatchObject({ decision: 'reject', principal: { id: 'system:approval-queue/corrupt-record' } });
    expect(answer.reason).toMatch(/principal is not valid/);
  });
});

describe('waitFor in one process', () => {
  it('returns an answer already on disk without waiting', async () => {
    const p = q.enqueue(request());
    q.resolve(p.id, { decision: 'allow', principal: alice });
    await expect(q.waitFor(p.id, {})).resolves.toMatchObject({ decision: 'allow', principal: alice });
  });

  it('returns the human answer, not the expiry, when the answer was first', async () => {
    const p = q.enqueue(request({ ttlSeconds: 1 }));
    q.resolve(p.id, { decision: 'allow', principal: alice });
    const late = new ApprovalQueue(project.state, () => new Date(Date.parse(p.expires_at) + 5000));
    await expect(late.waitFor(p.id, {})).resolves.toMatchObject({ decision: 'allow', principal: alice });
  });

  it('waits by the record it filed, not by an expiry rewritten on disk since', async () => {
    const p = q.enqueue(request({ ttlSeconds: 1 }));
    writeFileSync(pendingFile(p.id), JSON.stringify({ ...p, expires_at: new Date(Date.now() + 86_400_000).toISOString() }));
    const t0 = Date.now();
    await expect(q.waitFor(p, {})).resolves.toMatchObject({ decision: 'reject', expired: true });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('stops waiting when its signal aborts', async () => {
    const p = q.enqueue(request());
    const ctl = new AbortController();
    const waiting = q.waitFor(p.id, { signal: ctl.signal });
    ctl.abort(new Error('hook cancelled'));
    await expect(waiting).rejects.toThrow('hook cancelled');
    expect(q.get(p.id).resolution).toBeNull();
  });
});

describe('sweep housekeeping', () => {
  it('removes answered requests past the retention and temp files left by killed writers', () => {
    const p = q.enqueue(request());
    q.resolve(p.id, { decision: 'allow', principal: alice });
    const tmp = join(project.state, 'approvals', 'resolved', `.${p.id}.json.1.abc.tmp`);
    writeFileSync(tmp, 'half');
    utimesSync(tmp, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const later = new ApprovalQueue(project.state, () => new Date(Date.now() + RESOLVED_RETENTION_MS + 1000));
    expect(later.sweep()).toBe(0);
    expect(readdirSync(join(project.state, 'approvals', 'pending'))).toEqual([]);
    expect(readdirSync(join(project.state, 'approvals', 'resolved'))).toEqual([]);
  });
});
