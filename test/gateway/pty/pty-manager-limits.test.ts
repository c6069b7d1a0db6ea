// The manager's bounds with real processes: the live-session cap with FIFO eviction (also
// under a burst of concurrent spawns), the idle TTL on an injected clock, and dispose.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PtyManager } from '../../../src/gateway/pty/index.js';
import type { PtyManagerOptions } from '../../../src/gateway/pty/index.js';
import { isAlive, makeTemp, Recorder, until } from './support.js';

const SLEEPER = { command: '/bin/sh', args: ['-c', 'sleep 1000'] };

let temp: ReturnType<typeof makeTemp> | undefined;
let manager: PtyManager | undefined;

afterEach(async () => {
  await manager?.dispose();
  temp?.cleanup();
  manager = undefined;
  temp = undefined;
});

function setup(opts: Partial<PtyManagerOptions> = {}): { m: PtyManager; rec: Recorder; project: string; base: string } {
  temp = makeTemp();
  manager = new PtyManager({ projectRoot: temp.project, ...opts });
  return { m: manager, rec: new Recorder(manager), project: temp.project, base: temp.base };
}

function running(m: PtyManager): number {
  return m.list().filter((s) => s.state === 'running').length;
}

describe('the live-session cap', () => {
  it('evicts the oldest session when a spawn would exceed the cap, and reports it as evicted', async () => {
    const { m, rec, project } = setup({ maxSessions: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = m.spawn({ ...SLEEPER, cwd: project }, `s${i}`);
      if (!r.ok) throw new Error(r.reason);
      ids.push(r.value.id);
      expect(running(m)).toBeLessThanOrEqual(3);
    }
    const [oldest, ...rest] = ids;
    if (oldest === undefined) throw new Error('no sessions');
    expect(m.get(oldest)).toBeNull();
    expect(m.list().map((s) => s.id)).toEqual(rest);
    expect(m.list().map((s) => s.label)).toEqual(['s1', 's2', 's3']);
    expect(await rec.exitOf(oldest)).toEqual({ exit_code: null, signal: 'SIGHUP', reason: 'evicted' });
    expect(rest.every((id) => rec.exits(id).length === 0)).toBe(true);
  });

  it('never holds more live sessions than the cap under a burst of concurrent spawns', async () => {
    const { m, rec, project } = setup({ maxSessions: 3 });
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const r = m.spawn({ ...SLEEPER, cwd: project });
        peak = Math.max(peak, running(m));
        return r;
      }),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(peak).toBeLessThanOrEqual(3);
    const ids = results.flatMap((r) => (r.ok ? [r.value.id] : []));
    // FIFO: the last three spawned survive, the first nine are evicted.
    expect(m.list().map((s) => s.id)).toEqual(ids.slice(-3));
    for (const id of ids.slice(0, -3)) expect((await rec.exitOf(id)).reason).toBe('evicted');
    expect(running(m)).toBe(3);
  });

  it('does not count exited sessions against the cap', async () => {
    const { m, rec, project } = setup({ maxSessions: 2 });
    const quick = m.spawn({ command: '/bin/sh', args: ['-c', 'exit 0'], cwd: project });
    if (!quick.ok) throw new Error(quick.reason);
    await rec.exitOf(quick.value.id);
    const a = m.spawn({ ...SLEEPER, cwd: project });
    const b = m.spawn({ ...SLEEPER, cwd: project });
    expect(a.ok && b.ok).toBe(true);
    expect(running(m)).toBe(2);
    expect(m.get(quick.value.id)?.state).toBe('exited');
    expect(rec.events.filter((e) => e.kind === 'exit')).toHaveLength(1);
  });
});

describe('the idle TTL', () => {
  it('closes a session idle past the TTL with reason idle, and keeps a session with recent input', async () => {
    let clock = 1_000_000;
    const { m, rec, project } = setup({ idleTtlMs: 60_000, now: () => clock });
    const idle = m.spawn({ ...SLEEPER, cwd: project });
    const busy = m.spawn({ ...SLEEPER, cwd: project });
    if (!idle.ok || !busy.ok) throw new Error('spawn failed');
    clock += 40_000;
    expect(m.write(busy.value.id, 'still here').ok).toBe(true);
    // The terminal echoes input, which is output, hence activity too: let it land at this time.
    await rec.waitText(busy.value.id, 'still here');
    expect(m.sweepIdle()).toBe(0);
    clock += 30_000;
    expect(m.sweepIdle()).toBe(1);
    expect(await rec.exitOf(idle.value.id)).toEqual({ exit_code: null, signal: 'SIGHUP', reason: 'idle' });
    expect(m.get(busy.value.id)?.state).toBe('running');
    expect(m.get(busy.value.id)?.last_activity_at).toBe(new Date(1_040_000).toISOString());
    // An exited session lingers for a late reader, then is forgotten once it too is old.
    expect(m.get(idle.value.id)?.state).toBe('exited');
    clock += 61_000;
    expect(m.sweepIdle()).toBe(1);
    expect(m.get(idle.value.id)).toBeNull();
    expect((await rec.exitOf(busy.value.id)).reason).toBe('idle');
  });
});

describe('cwd checks', () => {
  it('refuses a cwd that reaches outside the project through a symlink', () => {
    const { m, project, base } = setup();
    symlinkSync(base, join(project, 'escape'));
    const r = m.spawn({ ...SLEEPER, cwd: join(project, 'escape') });
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/outside the project/) });
    expect(m.spawn({ ...SLEEPER, cwd: join(project, 'missing') })).toMatchObject({ ok: false, reason: expect.stringMatching(/cannot be opened/) });
  });
});

describe('dispose', () => {
  it('kills every session, including one that ignores SIGHUP and its background job', async () => {
    const { m, rec, project } = setup();
    const plain = m.spawn({ ...SLEEPER, cwd: project });
    const shell = m.spawn({ command: '/bin/sh', cwd: project });
    const stubborn = m.spawn({ command: '/bin/sh', args: ['-c', 'trap "" HUP; sleep 1000 & echo "child=$!"; wait'], cwd: project });
    // The shell dies of SIGHUP; the job it started with SIGHUP ignored would outlive it. It says
    // `child=` only once its own trap is reset, so a loaded machine cannot hang it up before that.
    const leaver = m.spawn({ command: '/bin/sh', args: ['-c', 'trap "" HUP; sleep 1000 & c=$!; trap - HUP; echo "child=$c"; wait'], cwd: project });
    if (!plain.ok || !shell.ok || !stubborn.ok || !leaver.ok) throw new Error('spawn failed');
    const jobOf = async (id: string): Promise<number> => {
      await rec.waitText(id, /child=\d+/);
      return Number(/child=(\d+)/.exec(rec.text(id))?.[1]);
    };
    const pids = [plain.value.pid, shell.value.pid, stubborn.value.pid, leaver.value.pid];
    pids.push(await jobOf(stubborn.value.id), await jobOf(leaver.value.id));
    expect(pids.every(isAlive)).toBe(true);

    await m.dispose();
    await until(() => !pids.some(isAlive), 'every process gone');
    expect(rec.exits(stubborn.value.id)).toEqual([{ exit_code: null, signal: 'SIGKILL', reason: 'closed' }]);
    expect(rec.exits(leaver.value.id)).toEqual([{ exit_code: null, signal: 'SIGHUP', reason: 'closed' }]);
    expect(rec.events.filter((e) => e.kind === 'exit')).toHaveLength(4);
    expect(m.list()).toEqual([]);
    expect(m.spawn({ ...SLEEPER, cwd: project }).ok).toBe(false);
  });
});
