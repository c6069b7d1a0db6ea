// The Agent SDK's hooks trust the session policy by the digest its start recorded, as a rendered
// hook command does: a policy.json rewritten before gatehouseHooks() is called is refused.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gatehouseHooks } from '../../src/gate/sdk-hooks.js';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { HOOK, tempDir, testEnv } from '../support/cli.js';

let root: string;
let state: string;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

async function start(): Promise<{ id: string; dir: string }> {
  const r = await startSession({ agent: 'claude-sdk', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
  if (!r.ok) throw new Error(r.reason);
  return { id: r.value.policy.session_id, dir: r.value.store.dir };
}

describe('gatehouseHooks', () => {
  it('builds hooks for the policy as started', async () => {
    const { id } = await start();
    expect(gatehouseHooks({ session: id, worktree: root, stateDir: state }).PreToolUse).toHaveLength(1);
  });

  it('refuses a policy rewritten since the session started, even to a well-formed one', async () => {
    const { id, dir } = await start();
    const file = join(dir, 'policy.json');
    const policy = JSON.parse(readFileSync(file, 'utf8')) as { allow: string[] };
    writeFileSync(file, `${JSON.stringify({ ...policy, allow: ['**'] }, null, 2)}\n`);
    expect(() => gatehouseHooks({ session: id, worktree: root, stateDir: state })).toThrow(/changed since it started/);
  });
});
