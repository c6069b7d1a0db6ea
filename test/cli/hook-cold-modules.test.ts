// A cold allowed call loads no more of Node than it needs: no node:crypto (2.5–3 ms of a cold start,
// with Node's stream modules), no child_process. Its digests come from the WebAssembly SHA-256
// instead, and must be node:crypto's exactly: the tool call's args_hash the loop watchdog keeps,
// the pinned policy's digest. A large call, a refusal, and a Node without a usable
// WebAssembly take node:crypto and give the same answers. No call sets up the process's time zone
// (V8's first Date#toISOString does, for a UTC text): a refusal and a Stop write their timestamps
// without it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/crypto/canonical-json.js';
import { WASM_HASH_BUDGET } from '../../src/core/crypto/sha256.js';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { HOOK, tempDir, testEnv } from '../support/cli.js';

let root: string;
let state: string;
let id: string;
/** The policy digest `session start` rendered into the hook commands. */
let pin: string;
let preload: string;
let calls = 0;

/**
 * Writes, at exit, the built-in modules the process loaded after the preload ran, and which of
 * the Date methods that set up the process's time zone (ICU reads /etc/localtime and its zone
 * data: about 1 ms of a cold start) it called. JSON.stringify of a Date calls toISOString too.
 */
const PRELOAD = `const before = new Set(process.moduleLoadList);
const zoned = new Set();
for (const name of ['toISOString', 'toString', 'toDateString', 'toTimeString', 'toLocaleString', 'toLocaleDateString', 'toLocaleTimeString', 'getTimezoneOffset', 'getFullYear', 'getMonth', 'getDate', 'getDay', 'getHours', 'getMinutes', 'getSeconds']) {
  const own = Date.prototype[name];
  Date.prototype[name] = function (...args) { zoned.add(name); return own.apply(this, args); };
}
process.on('exit', () => require('node:fs').writeFileSync(process.env.GH_TEST_MODULES, JSON.stringify({ modules: process.moduleLoadList.filter((m) => !before.has(m)), zoned: [...zoned] })));
`;

interface Call {
  status: number | null;
  stderr: string;
  modules: string[];
  /** Date methods called that set up the time zone. */
  zoned: string[];
  input: Record<string, unknown>;
}

/** Runs the built hook cold, as rendered, for a Write of `file` with `content`; `flags` go to node, `limitKb` to `ulimit -v`. */
function write(file: string, content: string, flags: string[] = [], limitKb?: number): Call {
  const input = { file_path: join(root, file), content: `${content}\n// call ${calls + 1}` };
  return hook('PreToolUse', { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: input }, flags, limitKb, input);
}

/** Runs the built hook cold, as rendered, for a Stop. */
function stop(): Call {
  return hook('Stop', { hook_event_name: 'Stop', cwd: root, stop_hook_active: false }, [], undefined, {});
}

/** Runs the built hook cold, as rendered, for `event` with `payload` on stdin, and reads back what its preload saw. */
function hook(event: string, payload: Record<string, unknown>, flags: string[], limitKb: number | undefined, input: Record<string, unknown>): Call {
  calls++;
  const out = join(state, `modules-${calls}.json`);
  const argv = [...flags, '--require', preload, HOOK, 'check', '--session', id, '--event', event, '--state-dir', state, '--policy-sha256', pin];
  const [cmd, args] = limitKb === undefined ? [process.execPath, argv] : ['/bin/sh', ['-c', `ulimit -v ${limitKb} && exec "$0" "$@"`, process.execPath, ...argv]];
  const r = spawnSync(cmd, args, {
    cwd: root,
    input: JSON.stringify(payload),
    encoding: 'utf8',
    env: { ...process.env, GH_TEST_MODULES: out },
    timeout: 30_000,
  });
  if (r.error) throw r.error;
  const seen = JSON.parse(readFileSync(out, 'utf8')) as { modules: string[]; zoned: string[] };
  return { status: r.status, stderr: r.stderr, ...seen, input };
}

/** The args_hash the hook kept for its last call. */
function lastArgsHash(): string {
  const turn = JSON.parse(readFileSync(join(state, 'sessions', id, 'turn-state.json'), 'utf8')) as { recent?: { args_hash: string }[] };
  const recent = turn.recent ?? [];
  expect(recent.length).toBeGreaterThan(0);
  return recent[recent.length - 1]!.args_hash;
}

const nodeSha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const HEAVY = ['NativeModule crypto', 'Internal Binding crypto', 'NativeModule stream', 'NativeModule child_process'];

beforeEach(async () => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  preload = join(base, 'preload.cjs');
  writeFileSync(preload, PRELOAD);
  const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
  if (!r.ok) throw new Error(r.reason);
  id = r.value.policy.session_id;
  const rendered = /--policy-sha256 ([0-9a-f]{64})/.exec(readFileSync(join(root, '.claude', 'settings.local.json'), 'utf8'));
  if (!rendered) throw new Error('no policy digest in the rendered hooks');
  pin = rendered[1]!;
});

describe('a cold hook call', () => {
  it('allows a small write without loading node:crypto, streams or child_process, and keeps the args digest node:crypto gives', () => {
    write('src/warm.ts', 'warm the code cache');
    const c = write('src/a.ts', 'export const a = 1;');
    expect(c.status, c.stderr).toBe(0);
    expect(c.modules.filter((m) => HEAVY.includes(m))).toEqual([]);
    expect(c.zoned).toEqual([]);
    expect(lastArgsHash()).toBe(nodeSha(canonicalJson(c.input)));
  });

  it('hashes a write past the WebAssembly limit with node:crypto, to the same digest', () => {
    const c = write('src/big.ts', 'x'.repeat(WASM_HASH_BUDGET + 10));
    expect(c.status, c.stderr).toBe(0);
    expect(c.modules).toContain('NativeModule crypto');
    expect(lastArgsHash()).toBe(nodeSha(canonicalJson(c.input)));
  });

  it('still refuses a write outside the allowlist, naming the file, sealing it without child_process', () => {
    const c = write('package.json', '{}');
    expect(c.status).toBe(2);
    expect(c.stderr).toContain('package.json is outside');
    // The seal signs with node:crypto; git runs nowhere on this path, so child_process (and net) stay unloaded.
    expect(c.modules).toContain('NativeModule crypto');
    expect(c.modules).not.toContain('NativeModule child_process');
    expect(readFileSync(join(state, 'audit', 'log.jsonl'), 'utf8')).toContain('"decision":"block"');
    // Its timestamps (the audit events, the checkpoint, the evidence) are written without setting up the time zone.
    expect(c.zoned).toEqual([]);
  });

  it('ends a turn, sealing its verdict, without setting up the time zone', () => {
    const c = stop();
    expect(c.status, c.stderr).toBe(0);
    expect(readFileSync(join(state, 'audit', 'log.jsonl'), 'utf8')).toContain('"type":"completion_verdict"');
    expect(c.zoned).toEqual([]);
  });

  // No WebAssembly at all (--jitless, --no-expose-wasm), or one that cannot have its memory
  // (--wasm-max-mem-pages=1, as under a tight `ulimit -v`): node:crypto takes over, same answers.
  it.each([['--jitless'], ['--no-expose-wasm'], ['--wasm-max-mem-pages=1']])('gives the same answers in a Node run with %s', (flag) => {
    const ok = write('src/b.ts', 'export const b = 2;', [flag]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.modules).toContain('NativeModule crypto');
    expect(lastArgsHash()).toBe(nodeSha(canonicalJson(ok.input)));
    expect(write('package.json', '{}', [flag]).status).toBe(2);
  });

  it('gives the same answers under a 4 GB address-space limit, where V8 cannot reserve WebAssembly memory', () => {
    const ok = write('src/c.ts', 'export const c = 3;', [], 4_000_000);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.modules).toContain('NativeModule crypto');
    expect(lastArgsHash()).toBe(nodeSha(canonicalJson(ok.input)));
    expect(write('package.json', '{}', [], 4_000_000).status).toBe(2);
  });

  it('refuses when one byte of the pinned policy changed, and reports the digest node:crypto gives it', () => {
    const file = join(state, 'sessions', id, 'policy.json');
    const tampered = readFileSync(file, 'utf8').replace('"src/**"', '"**"');
    writeFileSync(file, tampered);
    const c = write('package.json', '{}');
    expect(c.status).toBe(2);
    expect(c.stderr).toContain(`sha256 ${nodeSha(tampered).slice(0, 12)}`);
  });
});
