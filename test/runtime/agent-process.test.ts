// The agent runner's temp folder: every run gets its own TMPDIR (OpenCode leaves a 5.5 MB native
// library in its temp folder on every run), removed after the run however it ends.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgentProcess } from '../../src/runtime/doctor/run/agent-process.js';

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'gh-agent-process-'));
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

/** A stand-in agent: prints its TMPDIR and leaves a file in it, as OpenCode does. */
const LEAVES_A_FILE = 'printf %s "$TMPDIR"; echo library > "${TMPDIR:?no TMPDIR}/.leftover-00000000.so"';

describe('runAgentProcess', () => {
  it('gives a run its own TMPDIR under the scratch parent and removes it, with what the agent left there', async () => {
    const run = await runAgentProcess('/bin/sh', ['-c', LEAVES_A_FILE], { cwd: parent, env: { PATH: process.env.PATH ?? '' }, timeoutMs: 10_000, scratchParent: parent });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.startsWith(join(parent, 'gh-agent-tmp-'))).toBe(true);
    expect(existsSync(run.stdout)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('keeps a TMPDIR the runner set itself (Claude Code and Qwen Code get one in their scratch folder)', async () => {
    const own = mkdtempSync(join(parent, 'runner-'));
    const run = await runAgentProcess('/bin/sh', ['-c', LEAVES_A_FILE], { cwd: parent, env: { PATH: process.env.PATH ?? '', TMPDIR: own }, timeoutMs: 10_000, scratchParent: parent });
    expect(run.stdout).toBe(own);
    expect(readdirSync(parent)).toEqual([basename(own)]);
    expect(readdirSync(own)).toEqual(['.leftover-00000000.so']);
  });

  it('removes the folder when the run times out, and when the binary cannot start', async () => {
    const slow = await runAgentProcess('/bin/sh', ['-c', `${LEAVES_A_FILE}; sleep 30`], { cwd: parent, env: { PATH: process.env.PATH ?? '' }, timeoutMs: 300, scratchParent: parent });
    expect(slow.timedOut).toBe(true);
    expect(slow.signal).toBe('SIGTERM');
    expect(readdirSync(parent)).toEqual([]);
    await expect(runAgentProcess(join(parent, 'no-such-agent'), [], { cwd: parent, env: {}, timeoutMs: 10_000, scratchParent: parent })).rejects.toThrow(/ENOENT/);
    expect(readdirSync(parent)).toEqual([]);
  });
});
