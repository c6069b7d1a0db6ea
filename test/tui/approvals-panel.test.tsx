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
import { decisionsFor, verifyProjectAudit } from '../support/audit.js';
import { DEFAULT_ROWS } from '../../src/tui/list-window.js';
import { DOWN, ENTER, frameWhere, PAGE_DOWN, PAGE_UP } from '../support/panel.js';

let dir: string;
let clockMs: number;
/** One clock for queue and panel, so "time left" is exact and ids sort by our order. */
const clock = (): Date => new Date(clockMs);
let queue: ApprovalQueue;
let ana: Principal;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-tui-'));
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

/** Files two requests a second apart: a Bash call (5 min to answer), then a Write (10 min). */
function enqueueTwo(): [PendingApproval, PendingApproval] {
  const first = queue.enqueue({ session_id: 'sess-one', agent: 'claude', tool: 'Bash', summary: 'rm -rf build', ttlSeconds: 300 });
  clockMs += 1000;
  const second = queue.enqueue({ session_id: 'sess-two', agent: 'codex', tool: 'Write', summary: 'src/app.ts', ttlSeconds: 600 });
  return [first, second];
}

/** The lines of the whole-call box in a frame, without their indent. */
function detailLines(frame: string): string[] {
  const lines = frame.split('\n');
  const start = lines.findIndex((l) => l.includes('whole call ('));
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('    ')) break;
    out.push(line.slice(4));
  }
  return out;
}

/** The text of the whole-call box in a frame, lines joined. */
function detailText(frame: string): string {
  return detailLines(frame).join('');
}

function renderPanel() {
  return render(<ApprovalsPanel queue={queue} principal={ana} now={clock} />);
}

describe('ApprovalsPanel', () => {
  it('lists each pending call with its tool, summary, session, agent and time left', async () => {
    const [first, second] = enqueueTwo();
    const app = renderPanel();
    const frame = await frameWhere(app, (f) => f.includes(second.id));
    expect(frame).toContain('2 pending approvals');
    expect(frame).toMatch(/› Bash rm -rf build/);
    expect(frame).toMatch(/session sess-one · agent claude · 4m 59s left · ap-/);
    expect(frame).toMatch(/ {2}Write src\/app\.ts/);
    expect(frame).toMatch(/session sess-two · agent codex · 10m 00s left/);
    expect(frame).toContain(first.id);
  });

  it('counts the time left down every second', async () => {
    enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('4m 59s left'));
    clockMs += 2000;
    await frameWhere(app, (f) => f.includes('4m 57s left') && f.includes('9m 58s left'));
  });

  it('allows the selected call as the local OS user when a is pressed', async () => {
    const [first, second] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(first.id));
    app.stdin.write('a');
    const frame = await frameWhere(app, (f) => f.includes(`allowed ${first.id}`));
    expect(frame).not.toContain('rm -rf build');
    expect(frame).toContain('1 pending approval');
    const { resolution } = queue.get(first.id);
    expect(resolution).toMatchObject({ decision: 'allow', reason: null, principal: { id: 'os-user:ana', auth: 'local-shell' } });
    expect(queue.get(second.id).resolution).toBeNull();
    expect(decisionsFor(dir, first.id)).toEqual([
      expect.objectContaining({ actor: 'os-user:ana', session_id: 'sess-one', data: expect.objectContaining({ approval_id: first.id, decision: 'allow', auth: 'local-shell' }) }),
    ]);
    expect(decisionsFor(dir, second.id)).toEqual([]);
    expect(verifyProjectAudit(dir).ok).toBe(true);
  });

  it('rejects the second call with the typed reason after ↓, r, the reason and Enter', async () => {
    const [first, second] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(second.id));
    app.stdin.write(DOWN);
    await frameWhere(app, (f) => f.includes('› Write'));
    app.stdin.write('r');
    await frameWhere(app, (f) => f.includes(`Reason for rejecting ${second.id}`));
    app.stdin.write('touches ');
    app.stdin.write('prod config');
    await frameWhere(app, (f) => f.includes('touches prod config'));
    app.stdin.write(ENTER);
    await frameWhere(app, (f) => f.includes(`rejected ${second.id}`));
    expect(queue.get(second.id).resolution).toMatchObject({ decision: 'reject', reason: 'touches prod config', principal: { id: 'os-user:ana' } });
    expect(queue.get(first.id).resolution).toBeNull();
  });

  it('acts on keys typed in one burst, before the panel has redrawn', async () => {
    const [first, second] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(second.id));
    for (const key of [DOWN, 'r', 'q', 'uick no', ENTER]) app.stdin.write(key);
    await frameWhere(app, (f) => f.includes(`rejected ${second.id}`));
    expect(queue.get(second.id).resolution).toMatchObject({ decision: 'reject', reason: 'quick no' });
    expect(queue.get(first.id).resolution).toBeNull();
  });

  it('moves the selection with j and k as well as the arrows', async () => {
    const [first, second] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(second.id));
    app.stdin.write('j');
    await frameWhere(app, (f) => f.includes('› Write'));
    app.stdin.write('j');
    app.stdin.write('k');
    await frameWhere(app, (f) => f.includes('› Bash'));
    app.stdin.write('a');
    await frameWhere(app, (f) => f.includes(`allowed ${first.id}`));
  });

  it('cancels a reject with Esc and leaves the call waiting', async () => {
    const [first] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(first.id));
    app.stdin.write('r');
    await frameWhere(app, (f) => f.includes('Reason for rejecting'));
    app.stdin.write('nope');
    await frameWhere(app, (f) => f.includes('nope'));
    app.stdin.write('\u001B');
    await frameWhere(app, (f) => f.includes(`kept ${first.id} waiting`));
    expect(queue.get(first.id).resolution).toBeNull();
    expect(queue.list()).toHaveLength(2);
  });

  it('resolves the selected call as always, for this session, when A is pressed', async () => {
    const [first] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(first.id));
    app.stdin.write('A');
    await frameWhere(app, (f) => f.includes(`always allowed (this session) ${first.id}`));
    expect(queue.get(first.id).resolution).toMatchObject({ decision: 'always', principal: { id: 'os-user:ana' } });
  });

  it('drops a call that another surface resolved, without a restart', async () => {
    const [first, second] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(first.id));
    // Another surface: its own queue object on the same folder, as the CLI or gateway would have.
    const other = new ApprovalQueue(dir, clock);
    const bob = osUserPrincipal('bob');
    if (!bob.ok) throw new Error(bob.reason);
    expect(other.resolve(first.id, { decision: 'reject', principal: bob.value }).ok).toBe(true);
    const frame = await frameWhere(app, (f) => !f.includes(first.id));
    expect(frame).toContain(second.id);
    expect(frame).toContain('› Write');
  });

  it('does not act on a call that slid into the selection after another surface resolved the selected one', async () => {
    const [first, second] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(first.id));
    expect(new ApprovalQueue(dir, clock).resolve(first.id, { decision: 'reject', principal: ana }).ok).toBe(true);
    await frameWhere(app, (f) => !f.includes(first.id) && f.includes('› Write'));
    app.stdin.write('a');
    await frameWhere(app, (f) => f.includes(`${first.id} was resolved elsewhere; press a again to act on ${second.id}`));
    expect(queue.get(second.id).resolution).toBeNull();
    app.stdin.write('a');
    await frameWhere(app, (f) => f.includes(`allowed ${second.id}`));
    expect(queue.get(second.id).resolution).toMatchObject({ decision: 'allow' });
  });

  it('keeps a long list within the terminal height and says how many more there are', async () => {
    for (let i = 0; i < 12; i++) {
      queue.enqueue({ session_id: `sess-${i}`, agent: 'claude', tool: 'Bash', summary: `job ${i}`, ttlSeconds: 60 });
      clockMs += 1000;
    }
    const app = renderPanel();
    let frame = await frameWhere(app, (f) => f.includes('12 pending approvals'));
    expect(frame).toContain('job 0');
    expect(frame).toMatch(/… \d+ more below/);
    expect(frame.split('\n').length).toBeLessThan(DEFAULT_ROWS);
    expect(frame).not.toContain('job 11');
    for (let i = 0; i < 11; i++) app.stdin.write('j');
    frame = await frameWhere(app, (f) => f.includes('› Bash job 11'));
    expect(frame).toMatch(/… \d+ more above/);
    expect(frame.split('\n').length).toBeLessThan(DEFAULT_ROWS);
    expect(frame).not.toContain('job 0');
  });

  it('shows a call that another surface files, without a restart', async () => {
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('Nothing is waiting'));
    const late = new ApprovalQueue(dir, clock).enqueue({ session_id: 'sess-3', agent: 'claude', tool: 'Edit', summary: 'README.md', ttlSeconds: 60 });
    await frameWhere(app, (f) => f.includes(late.id) && f.includes('Edit README.md'));
  });

  it('reports the error when the selected call was answered elsewhere before the key press', async () => {
    const [first] = enqueueTwo();
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes(first.id));
    app.stdin.write('r');
    await frameWhere(app, (f) => f.includes('Reason for rejecting'));
    const bob = osUserPrincipal('bob');
    if (!bob.ok) throw new Error(bob.reason);
    queue.resolve(first.id, { decision: 'allow', principal: bob.value });
    app.stdin.write(ENTER);
    const frame = await frameWhere(app, (f) => f.includes(`approval ${first.id} was already resolved`));
    expect(frame.replace(/\s+/g, ' ')).toMatch(/answered allow by os-user:bob at .*; nothing more to do/);
    expect(queue.get(first.id).resolution).toMatchObject({ decision: 'allow', principal: { id: 'os-user:bob' } });
  });

  it('says nothing is waiting and how to quit when the queue is empty', async () => {
    const app = renderPanel();
    const frame = await frameWhere(app, (f) => f.length > 0);
    expect(frame).toContain('Nothing is waiting for approval');
    expect(frame).toContain('Press q to quit');
  });

  it('shows agent text on one line with line breaks marked and control characters replaced', async () => {
    queue.enqueue({ session_id: 'sess-x', agent: 'claude', tool: 'Bash', summary: 'echo hi\n\u001B[2Jclear', ttlSeconds: 60 });
    const app = renderPanel();
    const frame = await frameWhere(app, (f) => f.includes('echo hi'));
    expect(frame).toContain('echo hi ↵ <U+001B>[2Jclear');
    expect(frame).not.toContain('\u001B[2J');
  });

  it('cuts a long summary on its row, and shows it whole below, wrapped to the width', async () => {
    const summary = `echo ${'x'.repeat(300)} END`;
    queue.enqueue({ session_id: 'sess-x', agent: 'claude', tool: 'Bash', summary, ttlSeconds: 60 });
    const app = renderPanel();
    const frame = await frameWhere(app, (f) => f.includes('whole call'));
    expect(frame).toMatch(/^› Bash echo x+…$/m);
    expect(frame).toContain('whole call (4 lines):');
    expect(detailText(frame)).toBe(summary);
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('scrolls a call longer than the screen with ] and [ (and PgDn/PgUp): every character can be read', async () => {
    const summary = Array.from({ length: 40 }, (_, i) => `step-${String(i).padStart(2, '0')} ${'y'.repeat(80)}`).join(' && ');
    queue.enqueue({ session_id: 'sess-x', agent: 'claude', tool: 'Bash', summary, ttlSeconds: 60 });
    const app = renderPanel();
    let frame = await frameWhere(app, (f) => f.includes('whole call (lines 1–'));
    const page = /lines 1–(\d+) of (\d+)/.exec(frame);
    const [shown, total] = [Number(page?.[1]), Number(page?.[2])];
    expect(total).toBeGreaterThan(shown);
    const seen = new Map<number, string>();
    const collect = (f: string): void => {
      const m = /lines (\d+)–(\d+) of/.exec(f);
      detailLines(f).forEach((line, i) => seen.set(Number(m?.[1]) + i, line));
    };
    collect(frame);
    for (let first = 1; first + shown - 1 < total;) {
      app.stdin.write(seen.size % 2 === 0 ? ']' : PAGE_DOWN);
      frame = await frameWhere(app, (f) => !f.includes(`lines ${first}–`));
      first = Number(/lines (\d+)–/.exec(frame)?.[1]);
      collect(frame);
      expect(frame.split('\n').length).toBeLessThan(DEFAULT_ROWS);
    }
    // Frames drop trailing spaces; every line but the last is a full 96 columns (100 less the indent).
    const ordered = [...seen.keys()].sort((x, y) => x - y).map((k) => seen.get(k) ?? '');
    expect(ordered.map((l, i) => (i < ordered.length - 1 ? l.padEnd(96) : l)).join('')).toBe(summary);
    const last = Number(/lines (\d+)–/.exec(frame)?.[1]);
    app.stdin.write(PAGE_UP);
    await frameWhere(app, (f) => Number(/lines (\d+)–/.exec(f)?.[1]) < last);
    for (let i = 0; i < total; i++) app.stdin.write('[');
    await frameWhere(app, (f) => f.includes(`whole call (lines 1–${shown} of ${total}`));
  });

  it('offers A and P for a call longer than the screen only once its end has been on screen, and shows why the person is asked', async () => {
    const summary = Array.from({ length: 40 }, (_, i) => `step-${String(i).padStart(2, '0')} ${'y'.repeat(80)}`).join(' && ');
    const p = queue.enqueue({ session_id: 'sess-x', agent: 'claude', tool: 'Bash', summary, why: 'Gatehouse needs a person to approve `curl x`: it downloads.', ttlSeconds: 60 });
    const app = renderPanel();
    await frameWhere(app, (f) => f.includes('whole call (lines 1–') && f.includes('why you: Gatehouse needs a person to approve `curl x`'));
    app.stdin.write('A');
    await frameWhere(app, (f) => f.includes('its end has not been on screen'));
    expect(queue.get(p.id).resolution).toBeNull();
    for (let i = 0; i < 40; i++) app.stdin.write(']');
    await frameWhere(app, (f) => /lines \d+–(\d+) of \1/.test(f));
    app.stdin.write('A');
    await frameWhere(app, (f) => f.includes(`always allowed (this session) ${p.id}`));
    expect(queue.get(p.id).resolution).toMatchObject({ decision: 'always' });
  });
});
