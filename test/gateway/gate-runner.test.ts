// A long-lived host runs hook calls in the gate's worker thread (the built dist/hook/gate-worker.mjs):
// a call stuck on a lock another process holds stalls no terminal or client of the host, and it
// gives the very verdict the hook process gives.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runHookGate, type HookRequest } from '../../src/gate/hook-gate.js';
import { hostedGate, type HostedGate } from '../../src/gateway/gate-runner.js';
import { withLock } from '../../src/runtime/audit/lock.js';
import { HOOK, tempDir } from '../support/cli.js';
import { startTestSession } from '../support/git-session.js';

const WORKER = join(dirname(HOOK), 'gate-worker.mjs');

let root: string;
let state: string;
let gate: HostedGate | undefined;
let holder: ChildProcess | undefined;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

afterEach(async () => {
  await gate?.close();
  gate = undefined;
  holder?.kill('SIGKILL');
  holder = undefined;
});

async function session(): Promise<string> {
  const started = await startTestSession(root, state, { home: join(root, '..', 'home') });
  return started.policy.session_id;
}

const call = (id: string, file: string): HookRequest => ({
  sessionId: id,
  eventName: 'PreToolUse',
  stateDir: state,
  agent: 'claude',
  failClosed: false,
  policyDigest: null,
  stdin: JSON.stringify({ hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, file), content: 'x' } }),
  cwd: root,
});

describe('the gate in a worker thread', () => {
  it('gives the verdicts the in-process gate gives', async () => {
    const id = await session();
    gate = hostedGate(WORKER);
    for (const file of ['src/a.ts', 'package.json']) expect(await gate.run(call(id, file))).toEqual(await runHookGate(call(id, file)));
  });

  it("keeps the host's event loop running while a call waits on a lock a live process holds", async () => {
    const id = await session();
    // A live process owns the session's turn-state lock: the gate waits for it (2 s), then goes on without it.
    holder = spawn('sleep', ['60']);
    writeFileSync(join(state, 'sessions', id, 'turn-state.lock'), `${holder.pid} 0123456789abcdef\n`);
    gate = hostedGate(WORKER);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    try {
      const out = await gate.run(call(id, 'package.json'));
      expect(out.exitCode).toBe(2);
    } finally {
      clearInterval(timer);
    }
    // In process, a synchronous lock wait would have let no tick run until the call returned.
    expect(ticks).toBeGreaterThan(10);
  });

  it('runs in process when the worker is not built, and rejects waiting calls when it is closed', async () => {
    const id = await session();
    expect((await hostedGate(join(root, 'no-such-worker.js')).run(call(id, 'src/a.ts'))).exitCode).toBe(0);
    gate = hostedGate(WORKER);
    holder = spawn('sleep', ['60']);
    writeFileSync(join(state, 'sessions', id, 'turn-state.lock'), `${holder.pid} 0123456789abcdef\n`);
    const outcome = gate.run(call(id, 'src/a.ts')).then(
      () => 'answered',
      (err: Error) => err.message,
    );
    await new Promise((r) => setTimeout(r, 100));
    await gate.close();
    expect(await outcome).toMatch(/closed/);
  });
});

describe('file locks between threads of one process', () => {
  it("never takes another thread's lock for a dead owner's, and still takes this thread's leftover", () => {
    const dir = tempDir();
    const other = join(dir, 'other.lock');
    writeFileSync(other, `${process.pid} 7 0123456789abcdef\n`);
    expect(() => withLock(other, () => 'ran', 200)).toThrow(/timed out/);
    const leftover = join(dir, 'leftover.lock');
    writeFileSync(leftover, `${process.pid} 0 0123456789abcdef\n`);
    expect(withLock(leftover, () => 'ran', 200)).toBe('ran');
    // A lock written before thread ids were recorded is the main thread's.
    const old = join(dir, 'old.lock');
    writeFileSync(old, `${process.pid} 0123456789abcdef\n`);
    expect(withLock(old, () => 'ran', 200)).toBe('ran');
  });

  it("takes another thread's lock once it has been held far longer than any section (a worker that died in it)", () => {
    const dir = tempDir();
    const dead = join(dir, 'dead-worker.lock');
    writeFileSync(dead, `${process.pid} 7 0123456789abcdef\n`);
    const past = new Date(Date.now() - 10_000);
    utimesSync(dead, past, past);
    expect(withLock(dead, () => 'ran', 200)).toBe('ran');
  });
});
