import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { osUserPrincipal } from '../../src/core/approvals/principal.js';
import type { Principal } from '../../src/core/approvals/principal.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { ApprovalsPanel } from '../../src/tui/approvals-panel.js';

// Generous: a loaded 2-core machine can stall a render for seconds; the poll returns as soon as it is met.
const FRAME_WAIT_MS = 20_000;
const FRAME_POLL_MS = 10;
const DOWN = '\u001B[B';

let dir: string;
let queue: ApprovalQueue;
let ana: Principal;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-tui-always-'));
  queue = new ApprovalQueue(dir);
  const who = osUserPrincipal('ana');
  if (!who.ok) throw new Error(who.reason);
  ana = who.value;
});

afterEach(() => {
  cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function frameWhere(app: { lastFrame: () => string | undefined }, predicate: (frame: string) => boolean): Promise<string> {
  const deadline = Date.now() + FRAME_WAIT_MS;
  for (;;) {
    const frame = app.lastFrame() ?? '';
    if (predicate(frame)) return frame;
    if (Date.now() > deadline) throw new Error(`frame never matched; last frame:\n${frame}`);
    await new Promise((done) => setTimeout(done, FRAME_POLL_MS));
  }
}

/** The frame's text with Ink's wrapping undone, so a sentence can be matched whole. */
const unwrapped = (frame: string): string => frame.replace(/\s*\n\s*/g, ' ');

describe('ApprovalsPanel: what "always" would allow', () => {
  it('says for the selected request exactly what A (this session) and P (the project) would allow, before either is pressed', async () => {
    queue.enqueue({ session_id: 'sess-one', agent: 'claude', tool: 'Edit', summary: 'Edit src/a.ts: replace 1 line', always: { tool: 'Edit', on: 'paths', paths: ['src/a.ts'] }, ttlSeconds: 300 });
    queue.enqueue({ session_id: 'sess-two', agent: 'claude', tool: 'Bash', summary: 'Bash: make deploy', always: { tool: 'Bash', on: 'command', paths: [] }, ttlSeconds: 300 });
    const app = render(<ApprovalsPanel queue={queue} principal={ana} />);
    const frame = unwrapped(await frameWhere(app, (f) => f.includes('A: Always')));
    expect(frame).toContain(
      'A: Always allows every Edit of the file src/a.ts, whatever it writes, in this session only (sess-one) · P: the same, in this and every later session of this project, until revoked',
    );
    expect(frame).toContain('A always (this session) · P always (project)');
    app.stdin.write(DOWN);
    const second = unwrapped(await frameWhere(app, (f) => unwrapped(f).includes('running exactly the command shown')));
    expect(second).toContain('A: Always allows Bash running exactly the command shown, nothing else, in this session only (sess-two)');
  });

  it('says when "always" adds no rule, and P answers always-project as the local user', async () => {
    const p = queue.enqueue({ session_id: 'sess-one', agent: 'claude', tool: 'Odd', summary: 'Odd (list input)', always: null, ttlSeconds: 300 });
    const app = render(<ApprovalsPanel queue={queue} principal={ana} />);
    expect(unwrapped(await frameWhere(app, (f) => f.includes('A: Always')))).toContain('A: Always adds no rule: this call cannot be matched again, so it is allowed once.');
    app.stdin.write('P');
    await frameWhere(app, (f) => f.includes(`always allowed (this and later sessions) ${p.id}`));
    expect(queue.get(p.id).resolution).toMatchObject({ decision: 'always-project', principal: { id: 'os-user:ana' } });
  });
});
