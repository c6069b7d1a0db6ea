import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { osUserPrincipal } from '../../src/core/approvals/principal.js';
import type { Principal } from '../../src/core/approvals/principal.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import type { PendingApproval } from '../../src/runtime/approvals/index.js';
import { ApprovalsPanel } from '../../src/tui/approvals-panel.js';
import { formatTimeLeft } from '../../src/tui/format.js';
import { ERROR_SHOW_MS, STATUS_SHOW_MS } from '../../src/tui/panel-lines.js';
import { ENTER, ESC, frameWhere } from '../support/panel.js';

// What the panel does after an action: which call the next key acts on, and which
// status line is still up.

let dir: string;
let clockMs: number;
/** One clock for queue and panel, so ids sort by our order and the tests move time. */
const clock = (): Date => new Date(clockMs);
let queue: ApprovalQueue;
let ana: Principal;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-tui-next-'));
  clockMs = Date.parse('2030-01-02T03:04:05.000Z');
  queue = new ApprovalQueue(dir, clock);
  const who = osUserPrincipal('ana');
  if (!who.ok) throw new Error(who.reason);
  ana = who.value;
});

afterEach(() => {
  cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Files `n` Bash requests a second apart, `job 0` first; ten minutes to answer each. */
function enqueue(n: number): PendingApproval[] {
  const out: PendingApproval[] = [];
  for (let i = 0; i < n; i++) {
    out.push(queue.enqueue({ session_id: `sess-${i}`, agent: 'claude', tool: 'Bash', summary: `job ${i}`, ttlSeconds: 600 }));
    clockMs += 1000;
  }
  return out;
}

function renderPanel() {
  return render(<ApprovalsPanel queue={queue} principal={ana} now={clock} />);
}

describe('ApprovalsPanel after an action', () => {
  it('allows the next call with a right after allowing one: the panel moved the selection itself', async () => {
    const [first, second] = enqueue(2) as [PendingApproval, PendingApproval];
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('› Bash job 0'));
    app.stdin.write('a');
    await frameWhere(app, (f) => f.includes(`allowed ${first.id}`) && f.includes('› Bash job 1'));
    app.stdin.write('a');
    const frame = await frameWhere(app, (f) => f.includes(`allowed ${second.id}`) || f.includes('resolved elsewhere'));
    expect(frame).not.toContain('resolved elsewhere');
    expect(queue.get(second.id).resolution).toMatchObject({ decision: 'allow', principal: { id: 'os-user:ana' } });
  });

  it('opens the reason prompt for the next call right after rejecting one', async () => {
    const [first, second] = enqueue(2) as [PendingApproval, PendingApproval];
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('› Bash job 0'));
    app.stdin.write('r');
    await frameWhere(app, (f) => f.includes(`Reason for rejecting ${first.id}`));
    app.stdin.write('no');
    app.stdin.write(ENTER);
    await frameWhere(app, (f) => f.includes(`rejected ${first.id}`) && f.includes('› Bash job 1'));
    app.stdin.write('r');
    const frame = await frameWhere(app, (f) => f.includes(`Reason for rejecting ${second.id}`) || f.includes('resolved elsewhere'));
    expect(frame).not.toContain('resolved elsewhere');
  });

  it('acts on the call below after "always allow", and on the one above when the last was resolved', async () => {
    const [first, second, third] = enqueue(3) as [PendingApproval, PendingApproval, PendingApproval];
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('› Bash job 0'));
    app.stdin.write('j');
    await frameWhere(app, (f) => f.includes('› Bash job 1'));
    app.stdin.write('A');
    await frameWhere(app, (f) => f.includes(`always allowed ${second.id}`) && f.includes('› Bash job 2'));
    app.stdin.write('a');
    await frameWhere(app, (f) => f.includes(`allowed ${third.id}`) && f.includes('› Bash job 0'));
    app.stdin.write('a');
    const frame = await frameWhere(app, (f) => f.includes(`allowed ${first.id}`) || f.includes('resolved elsewhere'));
    expect(frame).toContain('Nothing is waiting');
    expect(queue.list()).toEqual([]);
  });

  it('acts on the selected call at once when another surface resolved a different one', async () => {
    const [first, , third] = enqueue(3) as [PendingApproval, PendingApproval, PendingApproval];
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('› Bash job 0'));
    app.stdin.write('j');
    app.stdin.write('j');
    await frameWhere(app, (f) => f.includes('› Bash job 2'));
    expect(new ApprovalQueue(dir, clock).resolve(first.id, { decision: 'reject', principal: ana }).ok).toBe(true);
    await frameWhere(app, (f) => !f.includes('job 0') && f.includes('› Bash job 2'));
    app.stdin.write('a');
    const frame = await frameWhere(app, (f) => f.includes(`allowed ${third.id}`) || f.includes('resolved elsewhere'));
    expect(frame).not.toContain('resolved elsewhere');
    expect(frame).toContain('› Bash job 1');
  });
});

/** The time left of `item` as its row shows it at the panel's clock now. */
function leftNow(item: PendingApproval): string {
  return `${formatTimeLeft(Date.parse(item.expires_at) - clockMs)} left`;
}

describe('ApprovalsPanel status line', () => {
  // The panel re-reads its clock once a second; the row's time left shows which reading a frame is from.
  it('takes the outcome of a key down once it has been up for a few seconds', async () => {
    const [first, second] = enqueue(2) as [PendingApproval, PendingApproval];
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('› Bash job 0'));
    app.stdin.write('a');
    await frameWhere(app, (f) => f.includes(`allowed ${first.id}`));
    clockMs += STATUS_SHOW_MS - 1000;
    let frame = await frameWhere(app, (f) => f.includes(leftNow(second)));
    expect(frame).toContain(`allowed ${first.id}`);
    clockMs += 1000;
    frame = await frameWhere(app, (f) => f.includes(leftNow(second)));
    expect(frame).not.toContain('allowed');
    expect(frame).toContain('› Bash job 1');
  });

  it('keeps an error up longer than a success, then takes it down too', async () => {
    const [first, second] = enqueue(2) as [PendingApproval, PendingApproval];
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('› Bash job 0'));
    expect(new ApprovalQueue(dir, clock).resolve(first.id, { decision: 'reject', principal: ana }).ok).toBe(true);
    await frameWhere(app, (f) => !f.includes(first.id) && f.includes('› Bash job 1'));
    app.stdin.write('a');
    await frameWhere(app, (f) => f.includes(`${first.id} was resolved elsewhere`));
    clockMs += STATUS_SHOW_MS;
    let frame = await frameWhere(app, (f) => f.includes(leftNow(second)));
    expect(frame).toContain(`${first.id} was resolved elsewhere`);
    clockMs += ERROR_SHOW_MS - STATUS_SHOW_MS;
    frame = await frameWhere(app, (f) => f.includes(leftNow(second)));
    expect(frame).not.toContain('resolved elsewhere');
    expect(queue.get(second.id).resolution).toBeNull();
  });

  it('takes down "kept … waiting" after Esc as well', async () => {
    const [first, second] = enqueue(2) as [PendingApproval, PendingApproval];
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('› Bash job 0'));
    app.stdin.write('r');
    await frameWhere(app, (f) => f.includes(`Reason for rejecting ${first.id}`));
    app.stdin.write(ESC);
    await frameWhere(app, (f) => f.includes(`kept ${first.id} waiting`));
    clockMs += STATUS_SHOW_MS;
    const frame = await frameWhere(app, (f) => f.includes(leftNow(second)));
    expect(frame).not.toContain('kept');
    expect(frame).toContain('› Bash job 0');
  });
});
