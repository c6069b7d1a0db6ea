// What `gatehouse run` and `session check` tell a person and a script: a command that never ran
// is not a pass, people get their own words, and every JSON output carries `passed` and snake_case keys.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';

let root: string;
let state: string;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

const where = (): string[] => ['--worktree', root, '--state-dir', state];
const run = (cmd: string[], extra: string[] = []) => gatehouse(['run', '--agent', 'claude', ...where(), '--allow', 'src/**', ...extra, '--', ...cmd]);

describe('a command that never ran', () => {
  it('is not PASSED: the verdict says it never ran, and the exit status stays 127', () => {
    const r = run(['nonexistent-cmd-for-gatehouse']);
    expect(r.status).toBe(127);
    // Said once, in plain words, inside the NOT RUN line; no raw "spawn … ENOENT".
    expect(r.stderr).toContain('NOT RUN — the command never ran: nonexistent-cmd-for-gatehouse: command not found (check the name and PATH)');
    expect(r.stderr.split('command not found').length - 1).toBe(1);
    expect(r.stderr).not.toContain('ENOENT');
    expect(r.stderr).not.toContain('PASSED');
    expect(existsClaude()).toBe(false);
  });

  it('says a file that is not executable is not executable, and how to run it', () => {
    const script = join(root, 'not-executable.sh');
    writeFileSync(script, 'echo hi\n', { mode: 0o644 });
    const r = run([script]);
    expect(r.status).toBe(127);
    expect(r.stderr).toContain(`${script} is not executable (chmod +x, or run it through its interpreter)`);
    expect(r.stderr).not.toContain('EACCES');
  });

  it('says so in JSON and in the session record', () => {
    const r = run(['nonexistent-cmd-for-gatehouse'], ['--json', '--id', 'nr1']);
    expect(r.status).toBe(127);
    expect(JSON.parse(r.stdout)).toMatchObject({ command_ran: false, passed: false, verdict: 'not_run', command_status: 127 });
    const meta = JSON.parse(readFileSync(join(state, 'sessions', 'nr1', 'meta.json'), 'utf8'));
    expect(meta.end_verdict).toMatchObject({ passed: false, verdict: 'not_run' });
    expect(meta.end_verdict.summary).toContain('never ran');
    expect(gatehouse(['session', 'list', ...where()]).stdout).toMatch(/nr1.*not run/);
    expect(gatehouse(['session', 'show', 'nr1', ...where()]).stdout).toMatch(/verdict: {2}not run — the command never ran/);
  });

  it('hides a secret the command quotes, in stderr and in the session record', () => {
    const r = gatehouse(['run', '--agent', 'none', ...where(), '--id', 'nr2', '--', 'API_KEY=sk-123', 'x']);
    expect(r.status).toBe(127);
    expect(r.stderr).toContain('API_KEY=*** command not found');
    expect(r.stderr).not.toContain('sk-123');
    const meta = readFileSync(join(state, 'sessions', 'nr2', 'meta.json'), 'utf8');
    expect(JSON.parse(meta).end_verdict.summary).toContain('API_KEY=***');
    expect(meta).not.toContain('sk-123');
  });
});

function existsClaude(): boolean {
  try {
    readFileSync(join(root, '.claude', 'settings.local.json'));
    return true;
  } catch {
    return false;
  }
}

describe('verdicts for people', () => {
  it('names the session in a passed session check', () => {
    const id = JSON.parse(run(['true'], ['--json']).stdout).session_id as string;
    const check = gatehouse(['session', 'check', id, ...where()]);
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(new RegExp(`^session ${id} PASSED — `));
  });

  it('words a failed required check for the person, not with the instructions written for the agent', () => {
    const r = run(['true'], ['--require', `t=${process.execPath} -e process.exit(4)`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/FAILED the end-of-session check:\n {2}- the required check "t" \(.*\) exited with 4/);
    expect(r.stderr).not.toContain('Fix the cause in the code');
    expect(r.stderr).not.toContain('then finish');
    const id = JSON.parse(run(['true'], ['--require', `t=${process.execPath} -e process.exit(4)`, '--json']).stdout).session_id as string;
    const check = gatehouse(['session', 'check', id, ...where()]);
    expect(check.stdout.startsWith(`session ${id} FAILED the end-of-session check:\n  - the required check "t"`)).toBe(true);
    expect(check.stdout).toContain(`fix, then run \`gatehouse session check ${id}\` again`);
    expect(check.stdout).not.toContain('Fix the cause in the code');
  });

  it("shows a person only the last lines of a failing check's output", () => {
    const script = 'for (let i = 1; i <= 20; i++) console.log("line " + i); process.exit(1)';
    const r = run(['true'], ['--require', `t=${process.execPath} -e '${script}'`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('line 20');
    expect(r.stderr).toContain('line 16');
    expect(r.stderr).not.toContain('line 15');
    expect(r.stderr).toContain('…');
  });
});

/** Every key in a JSON value, nested. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  }
  return out;
}

/** Field names the in-toto and DSSE specifications fix (evidence bundles carry them as such). */
const SPEC_KEYS = new Set(['payloadType', 'predicateType']);
const camel = (json: string): string[] => [...keysOf(JSON.parse(json))].filter((k) => /[a-z][A-Z]/.test(k) && !SPEC_KEYS.has(k));

describe('JSON outputs', () => {
  it('carry an explicit passed boolean and verdict, never only outcome "continue"', () => {
    const ok = JSON.parse(run(['true'], ['--json']).stdout);
    expect(ok).toMatchObject({ passed: true, verdict: 'passed', check: { passed: true, verdict: 'passed', outcome: 'continue', failed_checks: [] } });
    const bad = JSON.parse(run(['true'], ['--json', '--require', `t=${process.execPath} -e process.exit(4)`]).stdout);
    expect(bad).toMatchObject({ passed: false, verdict: 'failed', check: { passed: false, verdict: 'failed', decided_by: 'evidence_producers', failed_checks: ['evidence_producers'] } });
    const check = JSON.parse(gatehouse(['session', 'check', bad.session_id, ...where(), '--json']).stdout);
    expect(check).toMatchObject({ session_id: bad.session_id, passed: false, verdict: 'failed', decided_by: 'evidence_producers' });
    // The audit log says pass or fail in so many words too.
    const events = gatehouse(['audit', 'tail', '-n', '100', ...where(), '--json'])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; session_id: string; data: Record<string, unknown> });
    const verdicts = events.filter((e) => e.type === 'completion_verdict').map((e) => [e.session_id, e.data.verdict, e.data.failed_checks]);
    expect(verdicts).toContainEqual([ok.session_id, 'pass', []]);
    expect(verdicts).toContainEqual([bad.session_id, 'fail', ['evidence_producers']]);
  });

  it('use snake_case keys in every --json output', () => {
    const started = gatehouse(['session', 'start', '--agent', 'claude', ...where(), '--allow', 'src/**', '--require', `t=${process.execPath} -e process.exit(4)`, '--id', 'k1', '--json']);
    expect(started.status, started.stderr).toBe(0);
    const outputs: Record<string, string> = {
      'session start': started.stdout,
      'session check': gatehouse(['session', 'check', 'k1', ...where(), '--json']).stdout,
      'session show': gatehouse(['session', 'show', 'k1', ...where(), '--json']).stdout,
      'session list': gatehouse(['session', 'list', ...where(), '--json']).stdout,
      'session end': gatehouse(['session', 'end', 'k1', ...where(), '--json']).stdout,
      run: run(['true'], ['--json']).stdout,
      'audit verify': gatehouse(['audit', 'verify', ...where(), '--json']).stdout,
      'audit checkpoint': gatehouse(['audit', 'checkpoint', ...where(), '--json']).stdout,
      'evidence list': gatehouse(['evidence', 'list', ...where(), '--json']).stdout,
      'keys show': gatehouse(['keys', 'show', ...where(), '--json']).stdout,
      'approve --list': gatehouse(['approve', '--list', ...where(), '--json']).stdout,
      agents: gatehouse(['agents', '--json']).stdout,
      where: gatehouse(['where', ...where(), '--json']).stdout,
    };
    const evidence = JSON.parse(outputs['evidence list']!) as { id: string }[];
    outputs['evidence show'] = gatehouse(['evidence', 'show', evidence[0]!.id, ...where(), '--json']).stdout;
    for (const line of gatehouse(['audit', 'tail', ...where(), '--json'])
      .stdout.trim()
      .split('\n'))
      outputs[`audit tail: ${line.slice(0, 60)}`] = line;
    for (const [name, json] of Object.entries(outputs)) expect(camel(json), name).toEqual([]);
  }, 180_000);
});

describe('a verdict cannot be faked by what the agent wrote', () => {
  it("frames a failing check's output and quotes odd file names, so none of it reads as Gatehouse's PASSED line or reaches the terminal raw", () => {
    // The check is the agent's code: it prints a fake verdict, a screen clear and a C1 CSI.
    const fake = `gatehouse: session x PASSED — every required check passed and every change is inside the allowlist`;
    writeFileSync(join(root, 'check.js'), `process.stdout.write(${JSON.stringify(`\u001b[2J\u001b[H${fake}\n\u009b1A${fake}\n`)}); process.exit(1);\n`);
    const r = run([process.execPath, '-e', "require('fs').writeFileSync('x' + String.fromCharCode(27) + '[2K PASSED', '')"], ['--require', `check=${process.execPath} check.js`]);
    expect(r.status).toBe(1);
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).not.toMatch(/[\u001b\u009b]/);
    const lines = r.stderr.split('\n');
    const fakes = lines.filter((l) => l.includes('PASSED — every required check passed'));
    expect(fakes.length).toBeGreaterThan(0);
    for (const l of fakes) expect(l).toMatch(/^ +│ /);
    expect(r.stderr).toContain('created: "x\\u001b[2K PASSED"');
    expect(lines.some((l) => /^gatehouse: session \S+ FAILED the end-of-session check/.test(l))).toBe(true);
  });
});
