// Both ends of the verify's worker pool detach a throwaway buffer before their code gets hot, so
// that the first transferred page or result does not throw away every optimized function of the
// thread (V8 assumes no ArrayBuffer is ever detached until one is). Checked through V8's own
// optimization status, in a child run with --allow-natives-syntax.
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from '../../support/bundle-fixture.js';
import { tempDir } from '../../support/cli.js';

/** V8's status bit for code TurboFan compiled (runtime-test.cc, OptimizationStatus::kTurboFanned). */
const TURBOFANNED = 1 << 6;

let probe: string;
beforeAll(() => {
  probe = bundleFixture('test/runtime/audit/fixtures/detach-probe.ts', tempDir(), 'detach-probe');
});

function run(mode: string): { before: number; after: number } {
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', probe, mode], { encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { before: number; after: number };
}

describe('the worker pool and detached buffers', () => {
  it('without the pool, detaching a buffer throws away optimized typed-array code (the probe sees it)', () => {
    const s = run('none');
    expect(s.before & TURBOFANNED).toBe(TURBOFANNED);
    expect(s.after & TURBOFANNED).toBe(0);
  });

  it.each(['worker', 'caller'])('a thread the pool set up (%s) keeps it', (mode) => {
    const s = run(mode);
    expect(s.before & TURBOFANNED).toBe(TURBOFANNED);
    expect(s.after & TURBOFANNED).toBe(TURBOFANNED);
  });
});
