import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VerifierChain } from '../../../src/core/verifier-chain.js';
import { checkGoalGate, goalGateVerifier, type GoalObjective } from '../../../src/runtime/stop-hooks/goal-gate.js';
import { shellStopHooksVerifier } from '../../../src/runtime/stop-hooks/shell.js';
import { CTX, tempDir } from './support.js';

let t: ReturnType<typeof tempDir>;
let marker: string;

beforeEach(() => {
  t = tempDir('gatehouse-goal-gate-');
  marker = join(t.dir, 'ran');
});
afterEach(() => t.cleanup());

const objective = (gate_command: string, source: GoalObjective['source'] = 'model', timeout_s?: number): GoalObjective => {
  const o: GoalObjective = { text: 'make the parser accept trailing commas', gate_command, source };
  if (timeout_s !== undefined) o.timeout_s = timeout_s;
  return o;
};

const signal = (): AbortSignal => new AbortController().signal;

describe('goal gate command from an untrusted source', () => {
  // Each command would create the marker if a shell ran it; the check must refuse each
  // before anything runs. The marker path itself uses only allowed characters.
  const metachars: [string, (m: string) => string][] = [
    ['semicolon', (m) => `touch ${m}; true`],
    ['and-list', (m) => `touch ${m} && true`],
    ['or-list', (m) => `false || touch ${m}`],
    ['pipe', (m) => `touch ${m} | cat`],
    ['background', (m) => `touch ${m} &`],
    ['command substitution', (m) => `echo $(touch ${m})`],
    ['backticks', (m) => `echo \`touch ${m}\``],
    ['variable expansion', (m) => `touch ${m} $HOME`],
    ['output redirect', (m) => `echo x > ${m}`],
    ['input redirect', (m) => `touch ${m} < /dev/null`],
    ['newline', (m) => `true\ntouch ${m}`],
    ['carriage return and tab', (m) => `touch\t${m}\r`],
    ['glob star', (m) => `touch ${m} *`],
    ['glob question mark', (m) => `touch ${m} ?`],
    ['glob bracket', (m) => `touch ${m} [ab]`],
    ['subshell', (m) => `(touch ${m})`],
    ['brace group', (m) => `{ touch ${m}; }`],
    ['tilde', (m) => `touch ${m} ~`],
    ['history bang', (m) => `touch ${m} !x`],
    ['comment hash', (m) => `touch ${m} #x`],
    ['backslash', (m) => `touch ${m} \\x`],
    ['percent', (m) => `touch ${m} %x`],
    ['caret', (m) => `touch ${m} ^x`],
    ['comma', (m) => `touch ${m} a,b`],
    ['non-ASCII', (m) => `touch ${m} é`],
    ['NUL byte', (m) => `touch ${m}\0`],
  ];

  it.each(metachars)('refuses a %s and provably never runs it', async (_what, make) => {
    for (const source of ['model', 'untrusted'] as const) {
      const out = await checkGoalGate({ globalHooks: [], objective: objective(make(marker), source) }, CTX, { cwd: t.dir });
      expect(out.kind).toBe('block');
      const reason = out.kind === 'block' ? out.reason : '';
      expect(reason).toContain('refused and not run');
      expect(reason).toContain(`its source is ${source}`);
      expect(reason).toContain('make the parser accept trailing commas');
      expect(out.detail).toMatchObject({ results: [{ name: 'goal_gate_command', outcome: 'error', duration_ms: 0 }] });
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('the same kind of command does create the marker when an operator wrote it (the probe works)', async () => {
    const out = await checkGoalGate({ globalHooks: [], objective: objective(`touch ${marker}; true`, 'operator') }, CTX, { cwd: t.dir });
    expect(out.kind).toBe('continue');
    expect(existsSync(marker)).toBe(true);
  });

  it('runs a model-sourced command that passes the check', async () => {
    const out = await checkGoalGate({ globalHooks: [], objective: objective(`touch ${marker}`, 'model') }, CTX, { cwd: t.dir });
    expect(out.kind).toBe('continue');
    expect(existsSync(marker)).toBe(true);
  });

  it('refuses an empty model-sourced command', async () => {
    const out = await checkGoalGate({ globalHooks: [], objective: objective('  ', 'model') }, CTX, { cwd: t.dir });
    expect(out.kind).toBe('block');
  });
});

describe('goal gate verdicts (fail-closed)', () => {
  it('blocks when the gate command fails, naming the goal and quoting its output', async () => {
    const out = await checkGoalGate({ globalHooks: [], objective: objective("sh -c 'echo 2 of 9 failed >&2; exit 1'", 'operator') }, CTX, { cwd: t.dir });
    expect(out.kind).toBe('block');
    const reason = out.kind === 'block' ? out.reason : '';
    expect(reason).toContain('The goal is not verified yet: "make the parser accept trailing commas"');
    expect(reason).toContain('completion cannot be claimed when the check could not run');
    expect(reason).toContain('2 of 9 failed');
  });

  it('vetoes when a global hook fails even though the gate command passes', async () => {
    const globalHooks = [{ name: 'db-check', command: 'exit 1' }];
    const out = await checkGoalGate({ globalHooks, objective: objective('true', 'model') }, CTX, { cwd: t.dir });
    expect(out.kind).toBe('block');
    expect(out.kind === 'block' && out.reason).toContain('db-check');
    // The same failing hook as the fail-open shell stage lets the stop through.
    const shell = await shellStopHooksVerifier(globalHooks, { cwd: t.dir }).verify(CTX, signal());
    expect(shell.kind).toBe('continue');
  });

  it('continues only when every global hook and the gate command pass, and runs them all', async () => {
    const a = join(t.dir, 'a');
    const globalHooks = [{ name: 'a', command: `touch ${a}` }];
    const out = await checkGoalGate({ globalHooks, objective: objective(`touch ${marker}`, 'model') }, CTX, { cwd: t.dir });
    expect(out.kind).toBe('continue');
    expect(existsSync(a) && existsSync(marker)).toBe(true);
  });

  it('vetoes on a gate command timeout', async () => {
    const out = await checkGoalGate({ globalHooks: [], objective: objective('sleep 30', 'model', 1) }, CTX, { cwd: t.dir });
    expect(out.kind).toBe('block');
    expect(out.kind === 'block' && out.reason).toContain('timed out after 1 s');
  });

  it('vetoes on a spawn failure', async () => {
    const out = await checkGoalGate({ globalHooks: [], objective: objective('true', 'operator') }, CTX, { cwd: join(t.dir, 'gone') });
    expect(out.kind).toBe('block');
    expect(out.kind === 'block' && out.reason).toContain('could not start');
  });

  it('lets a global hook halt outrank a refused gate command', async () => {
    const out = await checkGoalGate({ globalHooks: [{ name: 'budget', command: 'echo over budget; exit 3' }], objective: objective('a;b', 'untrusted') }, CTX, { cwd: t.dir });
    expect(out).toMatchObject({ kind: 'halt', reason: 'over budget' });
  });

  it('is the fail-closed chain stage goal_gate', async () => {
    const v = goalGateVerifier({ globalHooks: [], objective: objective('exit 2', 'operator') }, { cwd: t.dir });
    expect(v).toMatchObject({ name: 'goal_gate', posture: 'fail-closed' });
    const res = await new VerifierChain([v]).run(CTX, signal());
    expect(res).toMatchObject({ outcome: 'block', decidedBy: 'goal_gate' });
  });
});
