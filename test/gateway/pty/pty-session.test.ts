// One session end to end through a real PTY: output, exit codes and signals, resize seen
// by `stty size`, the server-held screen, and exit reported only after the last chunk.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_SUCH_SESSION, PtyManager } from '../../../src/gateway/pty/index.js';
import { isAlive, makeTemp, Recorder, until } from './support.js';

let temp: ReturnType<typeof makeTemp>;
let manager: PtyManager;
let rec: Recorder;

beforeEach(() => {
  temp = makeTemp();
  manager = new PtyManager({ projectRoot: temp.project, scrollbackLines: 1000 });
  rec = new Recorder(manager);
});

afterEach(async () => {
  await manager.dispose();
  temp.cleanup();
});

function spawnOk(command: string, args: string[], extra: { rows?: number; cols?: number } = {}): string {
  const r = manager.spawn({ command, args, cwd: temp.project, ...extra });
  if (!r.ok) throw new Error(r.reason);
  return r.value.id;
}

describe('a PTY session', () => {
  it('delivers the output of echo and then exit code 0, once, after the output', async () => {
    const id = spawnOk('/bin/sh', ['-c', 'echo hi']);
    const info = await rec.exitOf(id);
    expect(info).toEqual({ exit_code: 0, signal: null, reason: 'exited' });
    expect(rec.text(id)).toContain('hi');
    const events = rec.of(id);
    expect(events.at(-1)?.kind).toBe('exit');
    expect(rec.exits(id)).toHaveLength(1);
    expect(manager.get(id)).toMatchObject({ state: 'exited', exit: info, command: '/bin/sh', cwd: temp.project });
  });

  it('reports a non-zero exit code with no signal', async () => {
    const id = spawnOk('/bin/sh', ['-c', 'exit 3']);
    expect(await rec.exitOf(id)).toEqual({ exit_code: 3, signal: null, reason: 'exited' });
  });

  it('reports SIGHUP and reason closed when killed, and reaps the child', async () => {
    const id = spawnOk('/bin/sh', ['-c', 'sleep 1000']);
    const pid = manager.get(id)?.pid ?? -1;
    expect(manager.kill(id)).toEqual({ ok: true, value: undefined });
    expect(await rec.exitOf(id)).toEqual({ exit_code: null, signal: 'SIGHUP', reason: 'closed' });
    expect(isAlive(pid)).toBe(false);
    expect(manager.write(id, 'x').ok).toBe(false);
  });

  it('lets stty size see a resize of an interactive shell', async () => {
    const id = spawnOk('/bin/sh', []);
    expect(manager.write(id, 'stty size\n').ok).toBe(true);
    // Not anchored to a line start: input typed before the first prompt is echoed ahead of it.
    await rec.waitText(id, '24 80\r\n');
    expect(manager.resize(id, 100, 30).ok).toBe(true);
    expect(manager.get(id)).toMatchObject({ rows: 30, cols: 100 });
    expect(manager.write(id, Buffer.from('stty size\n')).ok).toBe(true);
    await rec.waitText(id, '30 100\r\n');
    expect(manager.write(id, 'exit 0\n').ok).toBe(true);
    expect((await rec.exitOf(id)).exit_code).toBe(0);
  });

  it('runs with TERM=xterm-256color unless the spec sets it, and with the spec env merged in', async () => {
    const r = manager.spawn({ command: '/bin/sh', args: ['-c', 'echo "T=$TERM G=$GREETING"'], cwd: '.', env: { GREETING: 'hello' } });
    if (!r.ok) throw new Error(r.reason);
    await rec.exitOf(r.value.id);
    expect(rec.text(r.value.id)).toContain('T=xterm-256color G=hello');
  });

  it('keeps a bounded screen: a snapshot after 5,000 lines holds the last lines, not the first', async () => {
    const id = spawnOk('/bin/sh', ['-c', "seq -f 'row-%05g' 1 5000"], { cols: 80, rows: 24 });
    await rec.exitOf(id);
    const snap = await manager.snapshot(id);
    if (!snap.ok) throw new Error(snap.reason);
    const lastSeq = Math.max(...rec.of(id).flatMap((e) => (e.kind === 'output' ? [e.seq] : [])));
    expect(snap.value).toMatchObject({ seq: lastSeq, cols: 80, rows: 24 });
    expect(snap.value.data).toContain('row-05000');
    expect(snap.value.data).not.toContain('row-00001');
    // 1,000 lines of scrollback plus 24 on screen, each at most 80 cells and a line break.
    expect(snap.value.data.length).toBeLessThan((1000 + 24) * 82);
    expect(rec.text(id).length).toBeGreaterThan(5000 * 10);
  });

  it('serves a snapshot of a live session that covers exactly the chunks up to its seq', async () => {
    const id = spawnOk('/bin/sh', []);
    manager.write(id, 'echo ready-$((40+2))\n');
    await rec.waitText(id, 'ready-42');
    const snap = await manager.snapshot(id);
    if (!snap.ok) throw new Error(snap.reason);
    expect(snap.value.data).toContain('ready-42');
    expect(snap.value.seq).toBe(rec.of(id).filter((e) => e.kind === 'output').length);
  });

  it('answers no such session for an unknown id', async () => {
    const unknown = 'pty-does-not-exist';
    expect(manager.write(unknown, 'x')).toEqual({ ok: false, reason: NO_SUCH_SESSION });
    expect(manager.resize(unknown, 80, 24)).toEqual({ ok: false, reason: NO_SUCH_SESSION });
    expect(manager.kill(unknown)).toEqual({ ok: false, reason: NO_SUCH_SESSION });
    expect(await manager.snapshot(unknown)).toEqual({ ok: false, reason: NO_SUCH_SESSION });
    expect(manager.get(unknown)).toBeNull();
    expect(() => {
      manager.pause(unknown);
      manager.resume(unknown);
    }).not.toThrow();
  });
});

describe('spawn refusals', () => {
  it('refuses zero or over-large geometry, on spawn and on resize', async () => {
    expect(manager.spawn({ cwd: temp.project, rows: 0 })).toMatchObject({ ok: false, reason: expect.stringMatching(/rows/) });
    expect(manager.spawn({ cwd: temp.project, cols: 1001 })).toMatchObject({ ok: false, reason: expect.stringMatching(/cols/) });
    expect(manager.spawn({ cwd: temp.project, cols: 80.5 }).ok).toBe(false);
    const id = spawnOk('/bin/sh', ['-c', 'sleep 1000']);
    expect(manager.resize(id, 0, 24).ok).toBe(false);
    expect(manager.resize(id, 80, 1001).ok).toBe(false);
    expect(manager.resize(id, 1000, 1000).ok).toBe(true);
    await until(() => manager.list().length === 1, 'one session');
  });

  it('refuses a cwd outside the project', () => {
    const r = manager.spawn({ command: '/bin/sh', cwd: temp.base });
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/outside the project/) });
    expect(manager.spawn({ command: '/bin/sh', cwd: '..' }).ok).toBe(false);
    expect(manager.list()).toEqual([]);
  });
});
