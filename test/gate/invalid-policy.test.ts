// A session policy that is not one (a key of the wrong type, an unknown posture) is refused in
// every posture, never judged with: through the gate every transport runs, with and without a digest.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runHookGate } from '../../src/gate/hook-gate.js';
import { sha256Hex } from '../../src/core/crypto/sha256.js';
import { tempDir } from '../support/cli.js';
import { startTestSession } from '../support/git-session.js';

let root: string;
let state: string;
let dir: string;
let sessionId: string;

beforeEach(async () => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  const started = await startTestSession(root, state, { home: join(base, 'home') });
  sessionId = started.policy.session_id;
  dir = started.store.dir;
});

const write = (file: string) =>
  JSON.stringify({ session_id: 'x', transcript_path: '/dev/null', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(root, file), content: 'x' } });
const gate = (policyDigest: string | null) =>
  runHookGate({ sessionId, eventName: 'PreToolUse', stateDir: state, agent: 'claude', failClosed: false, policyDigest, stdin: write('src/a.ts'), cwd: root });

function rewritePolicy(change: (p: Record<string, unknown>) => void): string {
  const file = join(dir, 'policy.json');
  const p = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(p);
  const text = JSON.stringify(p);
  writeFileSync(file, text);
  return sha256Hex(text);
}

describe('a session policy of the wrong shape', () => {
  it('is refused in the fail-open posture, naming the key, when the hooks carry no digest', async () => {
    rewritePolicy((p) => (p.allow = '**'));
    const r = await gate(null);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('allow must be a list');
  });

  it('is refused when its bytes match the digest the hook carries', async () => {
    const digest = rewritePolicy((p) => (p.posture = 'lenient'));
    const r = await gate(digest);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('posture must be "fail-open" or "fail-closed"');
  });

  it('still allows a write inside the allowlist with the policy as start wrote it', async () => {
    const r = await gate(sha256Hex(readFileSync(join(dir, 'policy.json'))));
    expect(r.exitCode).toBe(0);
  });
});
