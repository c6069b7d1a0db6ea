import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/runtime/audit/log.js';
import { gatehouse, tempDir } from '../support/cli.js';
import { runRenderedHook } from '../support/rendered-hook.js';

// `gatehouse session show`: the recent gate decisions it promises, read from the audit log,
// and a policy shown only as the session's start recorded it.

let base: string;
let root: string;
let state: string;
let id: string;

/** Nothing a terminal acts on: C0 controls but the newline, DEL, C1 controls. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u;
/** A file name an agent chose to redraw the operator's screen. */
const HOSTILE_NAME = 'notes\u001b[2J\u001b]0;owned\u0007.txt';

const show = (extra: string[] = [], stateDir = state) => gatehouse(['session', 'show', id, '--worktree', root, '--state-dir', stateDir, ...extra], { env: { COLUMNS: '80' } });

beforeAll(() => {
  base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--require', `t=${process.execPath} -e process.exit(1)`]);
  expect(started.status).toBe(0);
  id = started.stdout.trim();
  const write = (file: string) =>
    runRenderedHook(root, 'PreToolUse', { hook_event_name: 'PreToolUse', cwd: root, session_id: 'x', tool_name: 'Write', tool_input: { file_path: join(root, file), content: '{}' } });
  expect(write('package.json').status).toBe(2);
  expect(write(HOSTILE_NAME).status).toBe(2);
  expect(runRenderedHook(root, 'Stop', { hook_event_name: 'Stop', cwd: root, session_id: 'x', last_assistant_message: 'Done.' }).status).toBe(2);
});

/** A copy of the state folder to damage. */
function copyState(): string {
  const copy = join(tempDir(), 'state');
  cpSync(state, copy, { recursive: true });
  return copy;
}

describe('gatehouse session show', () => {
  it('lists the refused writes and the refused stop, oldest first, each with its reason', () => {
    const r = show();
    expect(r.status).toBe(0);
    const out = r.stdout;
    expect(out.replace(/\s+/g, ' ')).toContain('recent gate decisions (all 3, oldest first');
    const write = out.indexOf('refused Write package.json (rule write.');
    const stop = out.indexOf('stop refused (evidence_producers)');
    expect(write).toBeGreaterThan(0);
    expect(stop).toBeGreaterThan(write);
    expect(out).toContain('Gatehouse refused this Write: package.json is outside');
    // The stop is told in words for a person, not in the instructions the agent was given.
    expect(out.slice(stop)).toContain('the required check "t"');
    expect(out.slice(stop)).not.toContain('Fix the cause');
    // Paths (worktree, log) are printed whole; everything from the decisions on fits the width.
    for (const line of out.slice(out.indexOf('recent gate decisions')).split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('wraps reasons at word boundaries only', () => {
    const lines = show().stdout.split('\n');
    const start = lines.findIndex((l) => l.includes('refused Write package.json'));
    const reason = [];
    for (const line of lines.slice(start + 1)) {
      if (!line.startsWith('      ')) break;
      reason.push(line.trim());
    }
    const recorded = "Gatehouse refused this Write: package.json is outside this task's allowed paths (src/**).";
    expect(reason.join(' ').startsWith(recorded)).toBe(true);
  });

  it('prints the escape sequences of an agent-chosen file name as inert marks', () => {
    const out = show().stdout;
    expect(out).not.toMatch(TERMINAL_CONTROLS);
    expect(out).toContain('notes<U+001B>[2J<U+001B>]0;owned<U+0007>.txt');
  });

  it('prints meta.json, which no digest covers, as inert text too', () => {
    const copy = copyState();
    const file = join(copy, 'sessions', id, 'meta.json');
    const meta = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...meta, status: 'ended\u001b[2J', end_verdict: { passed: true, summary: 'fine\u009b1A', at: meta.started_at } }));
    const out = show([], copy).stdout;
    expect(out).not.toMatch(TERMINAL_CONTROLS);
    expect(out).toContain('ended<U+001B>[2J');
  });

  it('shows only the newest with -n, saying how many there are', () => {
    const out = show(['-n', '1']).stdout;
    expect(out).toContain('last 1 of 3');
    expect(out).toContain('stop refused');
    expect(out).not.toContain('refused Write');
  });

  it('includes the decisions, and whether the log verifies, in --json', () => {
    const r = show(['--json']);
    const json = JSON.parse(r.stdout);
    expect(json.decisions.total).toBe(3);
    expect(json.decisions.events.map((e: { type: string }) => e.type)).toEqual(['gate_decision', 'gate_decision', 'completion_verdict']);
    expect(json.decisions.events[0].data).toMatchObject({ decision: 'block', tool: 'Write' });
    expect(json.decisions.audit_verified).toBe(true);
    expect(json.policy.allow).toEqual(['src/**']);
    expect(json.policy_problem).toBeNull();
  });

  it('says when none are recorded yet, and what would be', () => {
    const fresh = tempDir();
    mkdirSync(join(fresh, 'repo'));
    const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', join(fresh, 'repo'), '--state-dir', join(fresh, 'state')]);
    const r = gatehouse(['session', 'show', started.stdout.trim(), '--worktree', join(fresh, 'repo'), '--state-dir', join(fresh, 'state')]);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('recent gate decisions: none recorded yet (refused writes, stop verdicts');
  });

  it('warns that the decisions may be edited when the audit log no longer verifies', () => {
    const copy = copyState();
    const log = join(copy, 'audit', 'log.jsonl');
    writeFileSync(log, readFileSync(log, 'utf8').replace('is outside this task', 'is inside this task'));
    const r = show([], copy);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/WARNING: the audit log does not verify \(.+\); these records may have been edited/);
    expect(JSON.parse(show(['--json'], copy).stdout).decisions.audit_verified).toBe(false);
  });

  it('does not show a policy rewritten after start, and says why', () => {
    const copy = copyState();
    const file = join(copy, 'sessions', id, 'policy.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"src/**"', '"**"'));
    const out = show([], copy).stdout;
    expect(out.replace(/\s+/g, ' ')).toMatch(/policy: not shown: Gatehouse cannot trust session \S+: policy\.json was changed after the session started/);
    expect(out).not.toContain('allow:');
    const json = JSON.parse(show(['--json'], copy).stdout);
    expect(json.policy).toBeNull();
    expect(json.policy_problem).toContain('policy.json was changed');
  });

  it('keeps trusting the first start record of a session, not one appended later for a rewritten policy', () => {
    const copy = copyState();
    const file = join(copy, 'sessions', id, 'policy.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"src/**"', '"**"'));
    const forged = createHash('sha256').update(readFileSync(file)).digest('hex');
    new AuditLog(join(copy, 'audit')).append({ type: 'session_started', actor: 'system:session', session_id: id, data: { agent: 'claude', worktree: root, policy_sha256: forged } });
    const out = show([], copy).stdout.replace(/\s+/g, ' ');
    expect(out).toMatch(/policy: not shown: Gatehouse cannot trust session \S+: policy\.json was changed after the session started/);
  });

  it('takes the verdict from the audit log, and flags a meta.json that says otherwise', () => {
    const fresh = tempDir();
    const repo = join(fresh, 'repo');
    const st = join(fresh, 'state');
    mkdirSync(repo);
    const sid = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', repo, '--state-dir', st, '--require', `t=${process.execPath} -e process.exit(1)`]).stdout.trim();
    expect(gatehouse(['session', 'check', sid, '--worktree', repo, '--state-dir', st]).status).toBe(1);
    const file = join(st, 'sessions', sid, 'meta.json');
    const meta = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...meta, end_verdict: { passed: true, summary: 'all good', at: meta.started_at } }));
    const showFresh = (extra: string[] = []) => gatehouse(['session', 'show', sid, '--worktree', repo, '--state-dir', st, ...extra]);
    const out = showFresh().stdout;
    expect(out).toMatch(/verdict: {2}failed — the required check "t"/);
    expect(out.replace(/\s+/g, ' ')).toContain("WARNING: meta.json says passed; the audit log's record above is the one that counts");
    expect(JSON.parse(showFresh(['--json']).stdout).decisions.end_verdict.data).toMatchObject({ where: 'end_of_session', verdict: 'fail' });
  });

  it('says a verdict found only in meta.json is unsigned', () => {
    const copy = copyState();
    const file = join(copy, 'sessions', id, 'meta.json');
    const meta = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...meta, end_verdict: { passed: true, summary: 'all good', at: meta.started_at } }));
    expect(show([], copy).stdout.replace(/\s+/g, ' ')).toContain('verdict: passed — all good (unsigned: the audit log records no end-of-session check for it)');
  });

  it('refuses an -n that is not a whole number', () => {
    const r = show(['-n', 'ten']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('-n must be a whole number');
  });
});
