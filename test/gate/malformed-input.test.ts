// Hook input the agent controls that Gatehouse cannot read as well-formed (a lone UTF-16
// surrogate, nesting thousands deep, not JSON at all) is refused, in every posture and on the
// real hook bundle: it never crashes a helper into an infrastructure allow.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hook, tempDir } from '../support/cli.js';
import { startTestSession } from '../support/git-session.js';

let root: string;
let state: string;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

async function start(config = ''): Promise<string> {
  if (config) writeFileSync(join(root, 'gatehouse.yaml'), config);
  const started = await startTestSession(root, state, { home: join(root, '..', 'home') });
  return started.policy.session_id;
}

const args = (id: string, event = 'PreToolUse'): string[] => ['check', '--session', id, '--event', event, '--state-dir', state];
/** A PreToolUse payload as JSON text, so an escape such as `\ud800` reaches the hook as written. */
const payload = (tool: string, input: string): string => `{"hook_event_name":"PreToolUse","cwd":${JSON.stringify(root)},"tool_name":"${tool}","tool_input":${input}}`;
/** `{"k":{"k":…}}`, `levels` deep. */
const nested = (levels: number): string => `${'{"k":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('malformed hook input is refused, never allowed as an infrastructure failure', () => {
  for (const posture of ['', 'gate:\n  posture: fail-open\n']) {
    it(`refuses a write outside the allowlist with a lone surrogate in it${posture ? ' (fail-open posture)' : ''}`, async () => {
      const id = await start(posture);
      const r = hook(args(id), payload('Write', `{"file_path":${JSON.stringify(join(root, '..', 'outside.txt'))},"content":"x","description":"\\ud800"}`));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/surrogate/);
    });
  }

  it('refuses a command the classifier denies when a description field carries a lone low surrogate', async () => {
    const id = await start();
    const r = hook(args(id), payload('Bash', '{"command":"rm -rf ~","description":"clean \\udc00 up"}'));
    expect(r.status).toBe(2);
  });

  it('refuses an input nested deeper than Gatehouse reads, with the limit in the reason', async () => {
    const id = await start();
    const r = hook(args(id), payload('Bash', `{"command":"rm -rf ~","extra":${nested(5000)}}`));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/nested deeper than \d+ levels/);
  });

  it('refuses a hook input that is not JSON, or not an object', async () => {
    const id = await start();
    expect(hook(args(id), '{"tool_name": "Write", ').status).toBe(2);
    expect(hook(args(id), '[1, 2]').status).toBe(2);
  });

  it('still allows a well-formed call with any valid Unicode in it, a surrogate pair included', async () => {
    const id = await start();
    const r = hook(args(id), payload('Write', `{"file_path":${JSON.stringify(join(root, 'src', 'ok.ts'))},"content":"\\ud83d\\ude00 ok — ✓","description":"日本語"}`));
    expect(r.status).toBe(0);
  });
});
