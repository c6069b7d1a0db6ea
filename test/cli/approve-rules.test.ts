import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { osUserPrincipal } from '../../src/core/approvals/principal.js';
import { addStoredRules, configRuleId, readStoredRules } from '../../src/runtime/approvals/always-rules.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { gatehouse, tempDir } from '../support/cli.js';

let root: string;
let state: string;
const at = (): string[] => ['--worktree', root, '--state-dir', state];
const CONFIG_RULE = { tool: 'Bash', match: { exact: 'npm test' } };

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'gatehouse.yaml'), 'approvals:\n  always_allow:\n    - { tool: Bash, exact: "npm test" }\n');
});

function addEditRule(): string {
  const ana = osUserPrincipal('ana');
  if (!ana.ok) throw new Error(ana.reason);
  return addStoredRules(state, { rules: [{ tool: 'Edit', match: { exact: 'src/a.ts' } }], scope: 'session', session_id: 'sess-1', principal: ana.value, approval_id: 'ap-1' })[0]!.id;
}

describe('gatehouse approve --rules and --revoke', () => {
  it('lists every rule with its id, tool, match, lifetime and origin, as text and as JSON', () => {
    const id = addEditRule();
    const text = gatehouse(['approve', '--rules', ...at()]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${id}  Edit exact "src/a.ts"\n    in this session only (sess-1) · by os-user:ana at `);
    expect(text.stdout).toContain(`${configRuleId(CONFIG_RULE)}  Bash exact "npm test"\n    in every session of this project, until removed from the config (approvals.always_allow)\n`);
    expect(text.stdout).toContain('revoke one with: gatehouse approve --revoke RULE_ID');
    const json = JSON.parse(gatehouse(['approve', '--rules', '--json', ...at()]).stdout) as { rules: Record<string, unknown>[] };
    expect(json.rules).toEqual([
      expect.objectContaining({ id, tool: 'Edit', match: { exact: 'src/a.ts' }, scope: 'session', session_id: 'sess-1', created_by: 'os-user:ana', origin: 'approval', revocable: true }),
      expect.objectContaining({ id: configRuleId(CONFIG_RULE), tool: 'Bash', scope: 'project', created_by: null, origin: 'config', revocable: false }),
    ]);
  });

  it('revokes an answered rule as the local user; refuses a config rule and an unknown id with what to do', () => {
    const id = addEditRule();
    const fromConfig = gatehouse(['approve', '--revoke', configRuleId(CONFIG_RULE), ...at()]);
    expect(fromConfig.status).toBe(1);
    expect(fromConfig.stderr).toMatch(/comes from the project config \(approvals\.always_allow\); remove it there/);
    // The matcher in the same words as --rules, not as JSON.
    expect(fromConfig.stderr).toContain(`rule ${configRuleId(CONFIG_RULE)} (Bash exact "npm test") comes from`);
    const malformed = gatehouse(['approve', '--revoke', 'cfg-1234', ...at()]);
    expect(malformed.status).toBe(1);
    expect(malformed.stderr).toContain('"cfg-1234" is not a rule id (they are ar- or cfg- and 16 hex digits)');
    const revoked = gatehouse(['approve', '--revoke', id, '--json', ...at()]);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ revoked: { id, tool: 'Edit' }, revoked_by: expect.stringMatching(/^os-user:/) });
    expect(readStoredRules(state)).toEqual({ ok: true, value: [] });
    const again = gatehouse(['approve', '--revoke', id, ...at()]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`no always-allow rule ${id} in this project .*gatehouse approve --rules`));
    expect(gatehouse(['approve', '--rules', ...at()]).stdout).not.toContain('revoke one with');
  });

  it('keeps --always to this session unless --scope project, and refuses a scope without --always', () => {
    const queue = new ApprovalQueue(state);
    const p = queue.enqueue({ session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'Bash: make', always: { tool: 'Bash', on: 'command', paths: [] }, ttlSeconds: 60 });
    const none = queue.enqueue({ session_id: 's1', agent: 'claude', tool: 'Odd', summary: 'Odd (list input)', always: null, ttlSeconds: 60 });
    const listed = gatehouse(['approve', '--list', ...at()]).stdout;
    expect(listed).toContain(
      '    --always: Always allows Bash running exactly the command shown, nothing else, in this session only (s1); --always --scope project: the same, in this and every later session of this project, until revoked\n',
    );
    expect(listed).toContain('    --always: Always adds no rule: this call cannot be matched again, so it is allowed once.\n');
    expect(gatehouse(['approve', none.id, '--deny', ...at()]).status).toBe(0);
    expect(gatehouse(['approve', p.id, '--scope', 'project', ...at()]).status).toBe(2);
    expect(gatehouse(['approve', p.id, '--always', '--scope', 'forever', ...at()]).status).toBe(2);
    const r = gatehouse(['approve', p.id, '--always', ...at()]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Always allows Bash running exactly the command shown, nothing else, in this session only (s1)');
    expect(queue.get(p.id).resolution?.decision).toBe('always');
    const q = queue.enqueue({ session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'Bash: make', always: { tool: 'Bash', on: 'command', paths: [] }, ttlSeconds: 60 });
    const wide = gatehouse(['approve', q.id, '--always', '--scope', 'project', ...at()]);
    expect(wide.status).toBe(0);
    // People read "always (project)"; the record and JSON keep the stored value.
    expect(wide.stdout).toMatch(new RegExp(`^${q.id}: always \\(project\\) by os-user:`));
    expect(queue.get(q.id).resolution?.decision).toBe('always-project');
    const again = gatehouse(['approve', q.id, ...at()]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('answered always (project) by os-user:');
    expect(again.stderr).not.toContain('always-project');
  });

  it('refuses flags of two different jobs together, naming both (exit 2)', () => {
    for (const [args, names] of [
      [['--rules', '--revoke', 'ar-0000000000000000'], '--rules and --revoke'],
      [['--list', '--rules'], '--list and --rules'],
      [['--list', '--latest'], '--list and --latest'],
      [['--rules', 'ap-1'], '--rules and an approval id'],
      [['--revoke', 'ar-0000000000000000', '--latest', '--always'], '--revoke and --latest --always'],
    ] as const) {
      const r = gatehouse(['approve', ...args, ...at()]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${names} cannot be used together`);
    }
  });

  it('says in --help how long an --always rule lasts and how to list and revoke rules', () => {
    const help = gatehouse(['approve', '--help']).stdout;
    expect(help).toMatch(/--scope <scope>/);
    expect(help).toMatch(/--rules/);
    expect(help).toMatch(/--revoke <rule-id>/);
    expect(help).toContain('It lasts for this session only unless you pass --scope project.');
  });
});
