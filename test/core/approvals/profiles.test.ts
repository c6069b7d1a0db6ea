import { describe, expect, it } from 'vitest';
import { checkProfile, compileProfile, compileProfileSpec, insideWorktree, type ProfileCall, type ProfileSpec } from '../../../src/core/approvals/profiles.js';
import { analysis, claudeKind, type Cmd } from './shell-fixture.js';

const readOnly = compileProfile('read-only', {});
const builder = compileProfile('builder', {});
const reviewer = compileProfile('reviewer', {});

/** A Claude Code call: the kind comes from the Claude adapter's own table. */
function claude(tool: string, paths: string[] = []): ProfileCall {
  return { tool, kind: claudeKind(tool), paths };
}
function bash(cmds: Cmd[], writes: string[] = []): ProfileCall {
  return {
    tool: 'Bash',
    kind: 'shell',
    paths: [],
    shell: analysis(
      cmds,
      writes.map((path) => ({ path, via: '>', kind: 'write' as const, literal: true, recursive: false })),
    ),
  };
}
const allowed = (p: ReturnType<typeof compileProfile>, call: ProfileCall): boolean => checkProfile(p, call).ok;

describe('built-in profiles on Claude Code tool names', () => {
  const table: [tool: string, paths: string[], readOnly: boolean, builder: boolean, reviewer: boolean][] = [
    ['Read', [], true, true, true],
    ['Grep', [], true, true, true],
    ['Glob', [], true, true, true],
    ['LS', [], true, true, true],
    ['TodoWrite', [], true, true, true],
    ['TaskCreate', [], true, true, true],
    ['TaskUpdate', [], true, true, true],
    ['WebFetch', [], false, true, false],
    ['WebSearch', [], false, true, false],
    ['Task', [], false, true, false],
    ['Agent', [], false, true, false],
    ['mcp__github__create_issue', [], false, true, false],
    ['Write', ['src/a.ts'], false, true, false],
    ['Edit', ['src/a.ts'], false, true, false],
    ['MultiEdit', ['src/a.ts'], false, true, false],
    ['NotebookEdit', ['nb/a.ipynb'], false, true, false],
    ['Write', ['review/notes.md'], false, true, true],
    ['Edit', ['review/deep/x.md'], false, true, true],
    ['Write', ['src/auth.review.md'], false, true, true],
    ['Write', ['PR.review.md'], false, true, true],
    ['Write', ['../outside.txt'], false, false, false],
    ['Write', ['/etc/passwd'], false, false, false],
  ];
  for (const [tool, paths, ro, b, rv] of table) {
    const what = `${tool}${paths.length > 0 ? ` ${paths.join(',')}` : ''}`;
    it(`${ro ? 'read-only allows' : 'read-only refuses'} ${what}; ${b ? 'builder allows' : 'builder refuses'} it; ${rv ? 'reviewer allows' : 'reviewer refuses'} it`, () => {
      expect(allowed(readOnly, claude(tool, paths))).toBe(ro);
      expect(allowed(builder, claude(tool, paths))).toBe(b);
      expect(allowed(reviewer, claude(tool, paths))).toBe(rv);
    });
  }

  it('read-only allows approve-class commands such as git status and refuses anything the classifier would ask about', () => {
    expect(allowed(readOnly, bash([[['git', 'status'], 'approve']]))).toBe(true);
    expect(
      allowed(
        readOnly,
        bash([
          [['ls', '-la'], 'approve'],
          [['grep', 'x'], 'approve'],
        ]),
      ),
    ).toBe(true);
    expect(allowed(readOnly, bash([[['npm', 'install'], 'ask']]))).toBe(false);
    expect(
      allowed(
        readOnly,
        bash([
          [['git', 'status'], 'approve'],
          [['curl', 'x'], 'ask'],
        ]),
      ),
    ).toBe(false);
  });

  it('read-only refuses a Bash line that writes, even when every command in it is read-only', () => {
    const r = checkProfile(readOnly, bash([[['git', 'status'], 'approve']], ['status.txt']));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/does not allow writes.*status\.txt/);
  });

  it('lets output to /dev/null through as not a write', () => {
    expect(allowed(readOnly, bash([[['git', 'status'], 'approve']], ['/dev/null']))).toBe(true);
  });

  it('reviewer allows test and lint runners and refuses installs', () => {
    expect(allowed(reviewer, bash([[['npm', 'test'], 'ask']]))).toBe(true);
    expect(allowed(reviewer, bash([[['npm', 'test', '--', '--grep', 'x'], 'ask']]))).toBe(true);
    expect(allowed(reviewer, bash([[['npx', 'vitest', 'run'], 'ask']]))).toBe(true);
    expect(allowed(reviewer, bash([[['pytest', '-q'], 'ask']]))).toBe(true);
    expect(allowed(reviewer, bash([[['go', 'test', './...'], 'ask']]))).toBe(true);
    expect(allowed(reviewer, bash([[['cargo', 'test'], 'ask']]))).toBe(true);
    expect(allowed(reviewer, bash([[['make', 'check'], 'ask']]))).toBe(true);
    expect(allowed(reviewer, bash([[['git', 'diff'], 'approve']]))).toBe(true);
    expect(allowed(reviewer, bash([[['npm', 'install'], 'ask']]))).toBe(false);
    expect(allowed(reviewer, bash([[['npm', 'testx'], 'ask']]))).toBe(false);
    expect(
      allowed(
        reviewer,
        bash([
          [['npm', 'test'], 'ask'],
          [['rm', '-rf', 'src'], 'ask'],
        ]),
      ),
    ).toBe(false);
  });

  it('reviewer lets a test run write its report under review/ but nowhere else', () => {
    expect(allowed(reviewer, bash([[['npm', 'test'], 'ask']], ['review/out.txt']))).toBe(true);
    expect(allowed(reviewer, bash([[['npm', 'test'], 'ask']], ['src/out.txt']))).toBe(false);
  });

  it('builder allows any shell command and shell writes inside the worktree only', () => {
    expect(
      allowed(
        builder,
        bash(
          [
            [['npm', 'install'], 'ask'],
            [['rm', '-rf', 'dist'], 'ask'],
          ],
          ['dist/x'],
        ),
      ),
    ).toBe(true);
    expect(allowed(builder, bash([[['cp', 'a', '/tmp/a'], 'ask']], ['/tmp/a']))).toBe(false);
  });

  it('refuses a write tool call that names no path when the rule limits paths', () => {
    expect(allowed(reviewer, claude('Write', []))).toBe(false);
  });

  it('says in the reason what the model can do instead', () => {
    const r = checkProfile(readOnly, claude('Write', ['a.ts']));
    expect(r).toEqual({ ok: false, reason: expect.stringMatching(/"read-only" does not allow Write\..*use what it allows \(.*Read.*\).*ask the operator/) });
  });
});

describe('kind rules', () => {
  const spec: ProfileSpec = { tools: { 'kind:read': true, 'kind:write': { paths: ['docs/**'] }, read_many_files: false } };
  const p = compileProfile('docs', { docs: spec });

  it('serve tools of any agent by their kind', () => {
    expect(allowed(p, { tool: 'read_file', kind: 'read', paths: [] })).toBe(true);
    expect(allowed(p, { tool: 'write_file', kind: 'write', paths: ['docs/a.md'] })).toBe(true);
    expect(allowed(p, { tool: 'write_file', kind: 'write', paths: ['src/a.ts'] })).toBe(false);
  });

  it('lose to a rule for the tool by name', () => {
    expect(allowed(p, { tool: 'read_many_files', kind: 'read', paths: [] })).toBe(false);
  });

  it('refuse a kind the profile does not list (fail-closed)', () => {
    expect(allowed(p, { tool: 'run_shell_command', kind: 'shell', paths: [] })).toBe(false);
    expect(allowed(p, { tool: 'anything', kind: 'other', paths: [] })).toBe(false);
  });

  it('need kind:write for a shell command that writes, even when the shell tool is allowed by name', () => {
    const q = compileProfile('sh', { sh: { tools: { Bash: true, Write: true } } });
    expect(allowed(q, bash([[['echo', 'x'], 'approve']]))).toBe(true);
    expect(allowed(q, bash([[['echo', 'x'], 'approve']], ['a.txt']))).toBe(false);
  });
});

describe('unknown and invalid profiles', () => {
  it('an unknown profile name refuses everything and says the name is unknown', () => {
    const p = compileProfile('buidler', {});
    for (const tool of ['Read', 'Write', 'Bash', 'TodoWrite']) {
      const r = checkProfile(p, tool === 'Bash' ? bash([[['ls'], 'approve']]) : claude(tool, ['a']));
      expect(r).toEqual({ ok: false, reason: expect.stringContaining('"buidler" is not defined') });
    }
  });

  it('does not take an inherited object property for a profile', () => {
    expect(compileProfile('toString', {}).denyAll).toMatch(/not defined/);
    expect(compileProfile('__proto__', {}).denyAll).toMatch(/not defined/);
  });

  it('a custom profile shadows a built-in of the same name', () => {
    const p = compileProfile('builder', { builder: { tools: { Read: true } } });
    expect(allowed(p, claude('Write', ['a.ts']))).toBe(false);
  });

  it('an invalid spec is an error value, and as a session profile it refuses everything', () => {
    const bad: ProfileSpec = { tools: { Bash: true }, shell: { allow: ['re:(unclosed'] } };
    expect(compileProfileSpec('bad', bad)).toEqual({ ok: false, reason: expect.stringContaining('not a valid regular expression') });
    expect(compileProfile('bad', { bad }).denyAll).toMatch(/refused/);
    expect(compileProfileSpec('k', { tools: { 'kind:net': true } })).toEqual({ ok: false, reason: expect.stringContaining('unknown tool kind') });
    expect(compileProfileSpec('e', { tools: { Write: { paths: [] } } })).toEqual({ ok: false, reason: expect.stringContaining('write false') });
  });
});

describe('shell allowlist patterns', () => {
  const withAllow = (allow: string[]): ReturnType<typeof compileProfile> => compileProfile('p', { p: { tools: { Bash: true }, shell: { allow } } });

  it('matches literal words as a prefix of argv, never as a regex or glob', () => {
    const p = withAllow(['npm test', 'git log']);
    expect(allowed(p, bash([[['git', 'log', '--oneline'], 'ask']]))).toBe(true);
    expect(allowed(p, bash([[['git', 'logx'], 'ask']]))).toBe(false);
    const dot = withAllow(['make check.all', 'ls *']);
    expect(allowed(dot, bash([[['make', 'checkxall'], 'ask']]))).toBe(false);
    expect(allowed(dot, bash([[['ls', 'src'], 'ask']]))).toBe(false);
    expect(allowed(dot, bash([[['ls', '*'], 'ask']]))).toBe(true);
  });

  it('reads re: as a regex that must match the whole command', () => {
    const p = withAllow(['re:go (test|vet)( .*)?']);
    expect(allowed(p, bash([[['go', 'vet', './...'], 'ask']]))).toBe(true);
    expect(allowed(p, bash([[['go', 'build'], 'ask']]))).toBe(false);
    expect(allowed(withAllow(['re:npm test']), bash([[['npm', 'test', '&&', 'curl'], 'ask']]))).toBe(false);
  });

  it('reads glob: as a *-only glob over the whole command', () => {
    const p = withAllow(['glob:git log *']);
    expect(allowed(p, bash([[['git', 'log', '-5', 'src/a b.ts'], 'ask']]))).toBe(true);
    expect(allowed(p, bash([[['git', 'push'], 'ask']]))).toBe(false);
  });

  it('admits a command with $variables only through its classifier class', () => {
    const p = withAllow(['npm test']);
    expect(allowed(p, bash([[['npm', 'test', '$FILE'], 'ask', false]]))).toBe(false);
    expect(allowed(readOnly, bash([[['cat', '$FILE'], 'approve', false]]))).toBe(true);
  });

  it('refuses a command line the analyser could not parse', () => {
    const call = bash([[['npm', 'test'], 'ask']]);
    const r = checkProfile(withAllow(['npm test']), { ...call, shell: { ...call.shell!, parsed: false } });
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('could not be analysed') });
  });
});

describe('insideWorktree', () => {
  it('normalises relative paths and rejects ones that leave the worktree', () => {
    expect(insideWorktree('./src//a/./b.ts')).toBe('src/a/b.ts');
    expect(insideWorktree('src/../../x')).toBeNull();
    expect(insideWorktree('/abs')).toBeNull();
    expect(insideWorktree('~/x')).toBeNull();
    expect(insideWorktree('.')).toBeNull();
  });
});
