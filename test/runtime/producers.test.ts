import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProducerSpec } from '../../src/core/policy.js';
import { failureTail, runProducer, runProducers } from '../../src/runtime/producers.js';
import { deadAt, waitForFile } from '../support/processes.js';

const MiB = 1024 * 1024;
/** Upper bound, after a deadline or an abort, for the whole process group to be gone. */
const GROUP_DEAD_WITHIN_MS = 1000;

let dir: string;
const strays: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-producers-'));
});

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A producer that runs a Node script (no shell, no PATH lookup). */
function nodeSpec(name: string, script: string, timeout_s = 60): ProducerSpec {
  return { name, kind: 'check', command: [process.execPath, '-e', script], required: true, timeout_s };
}

/**
 * A child that ignores SIGTERM and starts a grandchild (same group) that also ignores
 * SIGTERM and holds the output pipe; the grandchild's pid is written to `pidFile`.
 */
function stubbornTreeScript(pidFile: string): string {
  const grandchild = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);";
  return `
    const { spawn } = require('node:child_process');
    process.on('SIGTERM', () => {});
    const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' });
    require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, g.pid + '\\n');
    console.log('started grandchild');
    setInterval(() => {}, 1000);
  `;
}

describe('runProducer', () => {
  it('passes a command that exits 0 and keeps its output', async () => {
    const r = await runProducer(nodeSpec('ok', "console.log('all good')"), { cwd: dir });
    expect(r).toMatchObject({ name: 'ok', required: true, status: 'passed', exit_code: 0, signal: null, truncated: false });
    expect(r.output).toBe('all good\n');
    expect(r.output_bytes).toBe(9);
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('runs in the given cwd with the given env', async () => {
    const r = await runProducer(nodeSpec('env', 'console.log(process.cwd(), process.env.GH_PROBE)'), {
      cwd: dir,
      env: { ...process.env, GH_PROBE: 'probe-value' },
    });
    expect(r.status).toBe('passed');
    expect(r.output).toContain('probe-value');
    expect(r.output).toContain(dir.split('/').pop());
  });

  it('fails on exit 3 and keeps the tail of the output for the block reason', async () => {
    const script = "for (let i = 0; i < 500; i++) console.log('noise line ' + i); console.error('AssertionError: expected 1 to be 2'); process.exit(3);";
    const r = await runProducer(nodeSpec('test', script), { cwd: dir });
    expect(r).toMatchObject({ status: 'failed', exit_code: 3, signal: null });
    expect(r.output).toContain('AssertionError: expected 1 to be 2');
    const tail = failureTail(r);
    expect(tail.length).toBeLessThanOrEqual(2000);
    expect(tail.endsWith('AssertionError: expected 1 to be 2')).toBe(true);
    expect(tail.startsWith('…')).toBe(true);
    expect(failureTail(r, 35)).toBe('…AssertionError: expected 1 to be 2');
  });

  it('interleaves stdout and stderr in arrival order', async () => {
    const script = `
      process.stdout.write('one\\n');
      setTimeout(() => process.stderr.write('two\\n'), 100);
      setTimeout(() => process.stdout.write('three\\n'), 200);
    `;
    const r = await runProducer(nodeSpec('mixed', script), { cwd: dir });
    expect(r.output).toBe('one\ntwo\nthree\n');
  });

  it('caps 20 MB of output to the tail, counts every byte and still finishes', async () => {
    const script = `
      const block = Buffer.alloc(${MiB}, 97);
      let n = 0;
      function write() {
        while (n < 20) {
          n++;
          if (!process.stdout.write(block)) return process.stdout.once('drain', write);
        }
        process.stdout.write('END');
      }
      write();
    `;
    const r = await runProducer(nodeSpec('flood', script), { cwd: dir });
    expect(r.status).toBe('passed');
    expect(r.truncated).toBe(true);
    expect(r.output_bytes).toBe(20 * MiB + 3);
    expect(Buffer.byteLength(r.output)).toBe(MiB);
    expect(r.output.endsWith('aaaEND')).toBe(true);
  });

  it('honours a small outputCapBytes without splitting a multi-byte character', async () => {
    const r = await runProducer(nodeSpec('utf8', "process.stdout.write('é'.repeat(1000))"), { cwd: dir, outputCapBytes: 101 });
    expect(r.truncated).toBe(true);
    expect(r.output_bytes).toBe(2000);
    expect(r.output).toBe('é'.repeat(50));
  });

  it('on timeout kills the whole group, grandchildren included, within 1 s of the deadline', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const timeout_s = 2;
    const started = Date.now();
    const run = runProducer(nodeSpec('hang', stubbornTreeScript(pidFile), timeout_s), { cwd: dir });
    const pid = Number((await waitForFile(pidFile)).trim());
    strays.push(pid);
    const r = await run;
    const deadline = started + timeout_s * 1000;
    const dead = await deadAt(pid, deadline + 10_000);
    expect(r.status).toBe('timed_out');
    expect(r.exit_code).toBeNull();
    expect(r.signal).toBe('SIGKILL');
    expect(r.output).toContain('started grandchild');
    expect(dead).not.toBeNull();
    expect((dead as number) - deadline).toBeLessThanOrEqual(GROUP_DEAD_WITHIN_MS);
  });

  it('on abort reports cancelled and kills the whole group', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const ac = new AbortController();
    const run = runProducer(nodeSpec('hang', stubbornTreeScript(pidFile)), { cwd: dir, signal: ac.signal });
    const pid = Number((await waitForFile(pidFile)).trim());
    strays.push(pid);
    const abortedAt = Date.now();
    ac.abort();
    const r = await run;
    const dead = await deadAt(pid, abortedAt + 10_000);
    expect(r.status).toBe('cancelled');
    expect(r.exit_code).toBeNull();
    expect(dead).not.toBeNull();
    expect((dead as number) - abortedAt).toBeLessThanOrEqual(GROUP_DEAD_WITHIN_MS);
  });

  it('does not start anything when the signal is already aborted', async () => {
    const marker = join(dir, 'ran');
    const r = await runProducer(nodeSpec('never', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`), {
      cwd: dir,
      signal: AbortSignal.abort(),
    });
    expect(r.status).toBe('cancelled');
    expect(() => readFileSync(marker)).toThrow();
  });

  it('finishes soon after exit when an escaped grandchild keeps the output pipe open', async () => {
    const pidFile = join(dir, 'escaped.pid');
    // detached: the grandchild leaves the producer's group, so the group kill cannot reach it.
    const script = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit', detached: true });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, g.pid + '\\n');
      console.log('bye');
      process.exit(0);
    `;
    const r = await runProducer(nodeSpec('escape', script), { cwd: dir });
    strays.push(Number((await waitForFile(pidFile)).trim()));
    expect(r.status).toBe('passed');
    expect(r.output).toBe('bye\n');
    // The grandchild lives for ever; only the bounded stdio wait lets the run end.
    expect(r.duration_ms).toBeLessThan(15_000);
  });

  it('reports spawn_error for a missing binary instead of throwing', async () => {
    const r = await runProducer({ name: 'missing', kind: 'check', command: [join(dir, 'no-such-binary'), '--x'], required: true, timeout_s: 5 }, { cwd: dir });
    expect(r).toMatchObject({ status: 'spawn_error', exit_code: null, signal: null });
    expect(r.output).toContain('ENOENT');
  });

  it('reports spawn_error for a file that is not executable', async () => {
    const file = join(dir, 'not-exec.sh');
    writeFileSync(file, '#!/bin/sh\nexit 0\n');
    chmodSync(file, 0o644);
    const r = await runProducer({ name: 'noexec', kind: 'check', command: [file], required: false, timeout_s: 5 }, { cwd: dir });
    expect(r.status).toBe('spawn_error');
    expect(r.output).toContain('EACCES');
  });

  it('reports spawn_error for an empty command and for a NUL byte in argv', async () => {
    const empty = await runProducer({ name: 'empty', kind: 'check', command: [], required: true, timeout_s: 5 }, { cwd: dir });
    expect(empty.status).toBe('spawn_error');
    expect(empty.output).toContain('empty command');
    const nul = await runProducer({ name: 'nul', kind: 'check', command: [process.execPath, 'a\0b'], required: true, timeout_s: 5 }, { cwd: dir });
    expect(nul.status).toBe('spawn_error');
  });
});

describe('runProducers', () => {
  const sleeper = (name: string, ms: number, code = 0): ProducerSpec => nodeSpec(name, `setTimeout(() => process.exit(${code}), ${ms})`);

  it('runs producers concurrently by default and one by one when sequential', async () => {
    const specs = [sleeper('a', 800), sleeper('b', 800)];
    let t = Date.now();
    const concurrent = await runProducers(specs, { cwd: dir });
    const concurrentWall = Date.now() - t;
    t = Date.now();
    const sequential = await runProducers(specs, { cwd: dir, sequential: true });
    const sequentialWall = Date.now() - t;

    expect([...concurrent, ...sequential].every((r) => r.status === 'passed')).toBe(true);
    // Sequential can not beat the sum of its runs; concurrent overlaps them.
    const single = Math.min(...sequential.map((r) => r.duration_ms));
    expect(sequentialWall).toBeGreaterThanOrEqual(2 * single);
    const concurrentSum = concurrent[0]!.duration_ms + concurrent[1]!.duration_ms;
    expect(concurrentWall).toBeLessThan(0.8 * concurrentSum);
    expect(concurrentWall).toBeLessThan(sequentialWall);
  });

  it('returns results in spec order, not finish order', async () => {
    const specs = [sleeper('slow', 600, 1), sleeper('fast', 0, 0), sleeper('middle', 300, 2)];
    const results = await runProducers(specs, { cwd: dir });
    expect(results.map((r) => [r.name, r.exit_code])).toEqual([
      ['slow', 1],
      ['fast', 0],
      ['middle', 2],
    ]);
  });

  it('cancels the remaining producers of a sequential run once aborted', async () => {
    const ac = new AbortController();
    const specs = [sleeper('first', 60_000), sleeper('second', 0)];
    const run = runProducers(specs, { cwd: dir, sequential: true, signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    const results = await run;
    expect(results.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });
});
