import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/runtime/audit/index.js';
import { CLI, gatehouse, tempDir } from '../support/cli.js';

// `gatehouse audit tail` as a person reads it: something to say at 0 events, and reasons
// wrapped at word boundaries, with nothing an agent wrote able to drive the terminal.

let root: string;
let state: string;
const at = (): string[] => ['--worktree', root, '--state-dir', state];

/** Nothing a terminal acts on: C0 controls but the newline, DEL, C1 controls. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(root, { recursive: true });
});

/** Appends a refused Bash call whose reason the agent's own text runs through. */
function appendRefusal(reason: string): void {
  new AuditLog(join(state, 'audit')).append({
    type: 'gate_decision',
    actor: 'system:hook-gate',
    session_id: 'sess-1',
    data: { event: 'pre_tool', tool: 'Bash', targets: ['/repo/out.txt'], decision: 'block', rule: 'write.not_allowed', input_digest: 'a'.repeat(64), reason },
  });
}

describe('gatehouse audit tail', () => {
  it('says there are no events yet, where it looked and what writes them', () => {
    const r = gatehouse(['audit', 'tail', ...at()]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`No audit events yet in ${join(state, 'audit')}`);
    expect(r.stdout).toContain('`gatehouse run`');
    expect(r.stdout).toContain('--state-dir');
  });

  it('keeps stdout to events with --json at 0 events, and says so on stderr', () => {
    const r = gatehouse(['audit', 'tail', '--json', ...at()]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No audit events yet');
  });

  it('wraps a long reason at word boundaries to the width, and ends a clipped one with …', () => {
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
    appendRefusal(words.join(' '));
    const r = gatehouse(['audit', 'tail', ...at()], { env: { COLUMNS: '60' } });
    expect(r.status).toBe(0);
    const [header, ...rest] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^\s+0 \S+ gate_decision\s+system:hook-gate\s+sess-1$/);
    const start = rest.findIndex((l) => l.trim().startsWith('reason: '));
    const fields = rest.slice(0, start).join(' ');
    const reason = rest.slice(start);
    expect(fields).toContain('decision=block');
    expect(fields).not.toContain('a'.repeat(64));
    expect(reason.length).toBeGreaterThan(1);
    for (const line of rest) expect(line.length).toBeLessThanOrEqual(60);
    const shown = reason
      .map((l) => l.trim())
      .join(' ')
      .slice('reason: '.length);
    expect(shown.endsWith(' …')).toBe(true);
    const shownWords = shown.slice(0, -2).split(' ');
    expect(shownWords).toEqual(words.slice(0, shownWords.length));
  });

  it('prints a short reason whole, on lines of its own under the event', () => {
    appendRefusal('Gatehouse refused this Write: out.txt is outside the allowed paths (src/**).');
    const r = gatehouse(['audit', 'tail', ...at()], { env: { COLUMNS: '200' } });
    expect(r.stdout).toContain('\n       reason: Gatehouse refused this Write: out.txt is outside the allowed paths (src/**).\n');
  });

  it('shows escape sequences and line breaks an agent put in a reason as inert marks', () => {
    appendRefusal('test output:\n\u001b[2J\u001b]0;pwned\u0007done \u009b31m red');
    const r = gatehouse(['audit', 'tail', ...at()]);
    expect(r.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(r.stdout).toContain('test output: ↵ <U+001B>[2J<U+001B>]0;pwned<U+0007>done <U+009B>31m red');
  });

  it('still prints every event whole with --json', () => {
    const reason = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    appendRefusal(reason);
    const r = gatehouse(['audit', 'tail', '--json', ...at()]);
    expect(JSON.parse(r.stdout).data.reason).toBe(reason);
  });
});

describe('gatehouse audit tail into a reader that stops early', () => {
  it('stops quietly when the pipe closes, like `| head`', () => {
    for (let i = 0; i < 300; i++) appendRefusal(`refusal ${i} `.repeat(40));
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI}" audit tail -n 300 --worktree "${root}" --state-dir "${state}" | head -n 1`], { encoding: 'utf8' });
    expect(r.stdout.split('\n')[0]).toMatch(/^\s+0 /);
    expect(r.stderr).toBe('');
  });
});
