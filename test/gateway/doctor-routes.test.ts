// `GET /api/doctor` on a real `gatehouse serve`: the stored last result per agent, behind the
// dashboard's credential; a stored file that is not a result, or that the agent planted (a FIFO,
// a huge file, a link), is left out and never waited on.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storeResult, type AgentReport } from '../../src/runtime/doctor/agent-report.js';
import { CLI, tempDir } from '../support/cli.js';

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGTERM');
  child = undefined;
});

const report: AgentReport = {
  agent: 'codex',
  binary: '/usr/bin/codex',
  binary_from: 'path',
  version: '0.171.0',
  tested_version: '0.171.0',
  tested: true,
  checked_at: '2025-06-01T11:00:00.000Z',
  duration_ms: 1000,
  gates: { write_gate: { state: 'BROKEN', claimed: 'blocking', evidence: 'the out-of-scope write landed' }, completion_gate: { state: 'blocking', claimed: 'blocking', evidence: 'x' } },
  not_probed: ['approvals'],
  problems: [],
};

describe('GET /api/doctor', () => {
  it('serves the stored doctor results to a signed-in caller only', async () => {
    const base = tempDir();
    const home = join(base, 'home');
    mkdirSync(join(base, 'repo'));
    storeResult(home, report);
    writeFileSync(join(home, 'doctor', 'gemini.json'), '{"not": "a result"}');
    // What the agent could plant in the state base: a FIFO (a blocking read would hang the server), a huge file, a link.
    execFileSync('mkfifo', [join(home, 'doctor', 'qwen.json')]);
    writeFileSync(join(home, 'doctor', 'copilot.json'), JSON.stringify({ ...report, agent: 'copilot', problems: ['x'.repeat(300 * 1024)] }));
    symlinkSync(join(home, 'doctor', 'codex.json'), join(home, 'doctor', 'claude.json'));
    child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--worktree', join(base, 'repo'), '--state-dir', join(base, 'state')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GATEHOUSE_HOME: home },
    });
    const url = await new Promise<URL>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /dashboard: (\S+)/.exec(out);
        if (m) resolve(new URL(m[1]!));
      });
      child!.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const token = url.searchParams.get('token')!;
    expect((await fetch(new URL('/api/doctor', url))).status).toBe(401);
    const res = await fetch(new URL('/api/doctor', url), { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      agents: [{ agent: 'codex', checked_at: '2025-06-01T11:00:00.000Z', version: '0.171.0', tested: true, gates: { write_gate: 'BROKEN', completion_gate: 'blocking' } }],
    });
  });
});
