// Shared setup for the approval queue tests: temp project state, a bundled child process
// (tests run TypeScript; a child needs plain JavaScript) and a line reader for its output.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { buildSync } from 'esbuild';
import type { Principal } from '../../../src/core/approvals/principal.js';
import type { EnqueueInput } from '../../../src/runtime/approvals/index.js';

/** A person at the local shell. */
export const alice: Principal = { id: 'os-user:alice', auth: 'local-shell' };
/** A caller holding a scoped token (an HTTP resolver). */
export const tokenBob: Principal = { id: 'token:bob', auth: 'scoped-token', grant: 'approvals' };

/** A request as a hook would file it. */
export function request(over: Partial<EnqueueInput> = {}): EnqueueInput {
  return { session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'npm publish', ttlSeconds: 60, ...over };
}

/** A fresh project state folder. */
export function tempProject(): { state: string; dispose: () => void } {
  const state = mkdtempSync(join(tmpdir(), 'gh-approvals-'));
  return { state, dispose: () => rmSync(state, { recursive: true, force: true }) };
}

/** Bundles fixtures/queue-child.ts (and the queue code it imports) to one .mjs in `dir`. */
export function bundleQueueChild(dir: string): string {
  const out = join(dir, 'queue-child.mjs');
  buildSync({ entryPoints: [resolve('test/runtime/approvals/fixtures/queue-child.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: out, logLevel: 'error' });
  return out;
}

/** Starts the bundled child with `args`. */
export function spawnChild(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Resolves with the exit code (or signal) and stderr of a child. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((res) => child.on('exit', (code, signal) => res({ code, signal, stderr })));
}

/** The JSON lines a child prints, taken in order by `next`. */
export class JsonLines {
  private readonly queued: Record<string, unknown>[] = [];
  private waiting: ((line: Record<string, unknown>) => void) | null = null;
  private ended = false;
  private failWaiting: ((err: Error) => void) | null = null;

  constructor(child: ChildProcess) {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const value = JSON.parse(line) as Record<string, unknown>;
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        this.failWaiting = null;
        w(value);
      } else this.queued.push(value);
    });
    rl.on('close', () => {
      this.ended = true;
      this.failWaiting?.(new Error('the child closed its output before the expected line'));
    });
  }

  /** The next line, waiting for it if needed. */
  next(): Promise<Record<string, unknown>> {
    const line = this.queued.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.reject(new Error('the child closed its output'));
    return new Promise((res, rej) => {
      this.waiting = res;
      this.failWaiting = rej;
    });
  }
}

/** Wall-clock time with sub-millisecond resolution, comparable across processes. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The median of some numbers. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
