// Shared setup for the audit tests: temp project state, keys, events, and a bundled
// child process (tests run TypeScript; a child needs plain JavaScript).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { loadOrCreateKey, type SigningKey } from '../../../src/runtime/keys.js';
import type { AppendInput } from '../../../src/runtime/audit/record.js';

/** A fresh project state folder with an audit dir inside. */
export function tempProject(): { state: string; audit: string; dispose: () => void } {
  const state = mkdtempSync(join(tmpdir(), 'gh-audit-'));
  const audit = join(state, 'audit');
  mkdirSync(audit);
  return { state, audit, dispose: () => rmSync(state, { recursive: true, force: true }) };
}

/** A signing key kept in a fresh folder under `parent` (a temp project's state). */
export function tempKey(parent: string): SigningKey {
  return loadOrCreateKey(mkdtempSync(join(parent, 'key-')));
}

/** A gate decision event numbered `i`. */
export function gateEvent(i: number, session = 's1'): AppendInput<'gate_decision'> {
  return {
    type: 'gate_decision',
    actor: 'system:hook-gate',
    session_id: session,
    data: { event: 'pre_tool', tool: 'Edit', targets: [`src/file-${i}.ts`], decision: i % 5 === 0 ? 'block' : 'allow', rule: 'allowlist', input_digest: `sha256:${i}` },
  };
}

/** Bundles fixtures/append-child.ts (and the audit code it imports) to one .mjs in `dir`. */
export function bundleAppendChild(dir: string): string {
  const out = join(dir, 'append-child.mjs');
  buildSync({ entryPoints: [resolve('test/runtime/audit/fixtures/append-child.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: out, logLevel: 'error' });
  return out;
}

/** Starts the bundled child appending `count` events (-1: until killed) tagged `tag`. */
export function spawnAppender(script: string, audit: string, count: number, tag: string): ChildProcess {
  return spawn(process.execPath, [script, audit, String(count), tag], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the exit code (or signal) and stderr of a child. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((res) => child.on('exit', (code, signal) => res({ code, signal, stderr })));
}

/** Resolves once the child printed "ready" (it has appended at least once). */
export function ready(child: ChildProcess): Promise<void> {
  return new Promise((res, rej) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) res();
    });
    child.on('exit', () => rej(new Error('child exited before it was ready')));
  });
}
