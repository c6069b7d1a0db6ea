import { describe, expect, it } from 'vitest';
import { compileAlwaysAllow, matchesAlwaysAllow, rulesForAlways, type AlwaysAllowCall, type AlwaysAllowRule, type CompiledAlwaysAllow } from '../../../src/core/approvals/always-allow.js';

function compiled(rules: AlwaysAllowRule[]): CompiledAlwaysAllow {
  const c = compileAlwaysAllow(rules);
  if (!c.ok) throw new Error(c.reason);
  return c.value;
}
const bash = (command: string): AlwaysAllowCall => ({ tool: 'Bash', kind: 'shell', paths: [], input: { command } });
const write = (...paths: string[]): AlwaysAllowCall => ({ tool: 'Write', kind: 'write', paths, input: { file_path: paths[0], content: 'x' } });
const hit = (rules: AlwaysAllowRule[], call: AlwaysAllowCall): boolean => matchesAlwaysAllow(compiled(rules), call) !== null;

describe('always-allow matching', () => {
  const table: [what: string, rule: AlwaysAllowRule, call: AlwaysAllowCall, matches: boolean][] = [
    ['exact matches the identical command', { tool: 'Bash', match: { exact: 'npm test' } }, bash('npm test'), true],
    ['exact does not match a longer command', { tool: 'Bash', match: { exact: 'npm test' } }, bash('npm test && curl x | sh'), false],
    ['a literal . in an exact rule never matches x', { tool: 'Bash', match: { exact: 'cat a.txt' } }, bash('cat axtxt'), false],
    ['a * in an exact rule is a literal star', { tool: 'Bash', match: { exact: 'ls *' } }, bash('ls src'), false],
    ['a command glob * matches anything, spaces included', { tool: 'Bash', match: { glob: 'git log *' } }, bash('git log --oneline -5'), true],
    ['a command glob keeps the rest literal', { tool: 'Bash', match: { glob: 'git log.*' } }, bash('git logx'), false],
    ['a command glob has no ? wildcard', { tool: 'Bash', match: { glob: 'ls ?' } }, bash('ls a'), false],
    ['a path glob uses allowlist semantics: * stays in one folder', { tool: 'Write', match: { glob: 'src/*' } }, write('src/a/b.ts'), false],
    ['a path glob uses allowlist semantics: ** crosses folders', { tool: 'Write', match: { glob: 'src/**' } }, write('src/a/b.ts'), true],
    ['a regex must match the whole key', { tool: 'Bash', match: { regex: 'npm (test|run lint)' } }, bash('npm run lint'), true],
    ['a regex is not a search', { tool: 'Bash', match: { regex: 'npm test' } }, bash('npm test; rm -rf ~'), false],
    ['a rule for one tool does not cover another', { tool: 'Edit', match: { glob: '**' } }, write('a.ts'), false],
    ['a kind rule covers every tool of that kind', { tool: 'kind:write', match: { glob: 'docs/**' } }, write('docs/a.md'), true],
    ['a write to two paths needs both allowed', { tool: 'Write', match: { glob: 'docs/**' } }, write('docs/a.md', 'src/b.ts'), false],
  ];
  for (const [what, rule, call, matches] of table) {
    it(what, () => expect(hit([rule], call)).toBe(matches));
  }

  it('keys other tools by the canonical JSON of their input, whatever the key order', () => {
    const rule: AlwaysAllowRule = { tool: 'WebFetch', match: { exact: '{"prompt":"p","url":"https://example.com"}' } };
    const call: AlwaysAllowCall = { tool: 'WebFetch', kind: 'read', paths: [], input: { url: 'https://example.com', prompt: 'p' } };
    expect(hit([rule], call)).toBe(true);
  });

  it('keys a shell tool that sends argv by its sh-quoted command line', () => {
    const call: AlwaysAllowCall = { tool: 'shell', kind: 'shell', paths: [], input: { command: ['git', 'commit', '-m', 'a b'] } };
    expect(hit([{ tool: 'shell', match: { exact: "git commit -m 'a b'" } }], call)).toBe(true);
  });

  it('returns the rule that matched', () => {
    const rule: AlwaysAllowRule = { tool: 'Bash', match: { exact: 'ls' } };
    expect(matchesAlwaysAllow(compiled([{ tool: 'Bash', match: { exact: 'pwd' } }, rule]), bash('ls'))).toEqual(rule);
  });
});

describe('a pattern on a shell command matches one whole simple command only', () => {
  const glob: AlwaysAllowRule = { tool: 'Bash', match: { glob: 'npm run lint*' } };
  const regex: AlwaysAllowRule = { tool: 'Bash', match: { regex: 'npm run lint.*' } };
  const kind: AlwaysAllowRule = { tool: 'kind:shell', match: { glob: 'npm run lint*' } };

  it.each([
    'npm run lint',
    'npm run lint -- --fix',
    'npm run lint:ci',
    'npm run lint 2>&1',
    'npm run lint > /dev/null 2>&1',
    'npm run lint "$FILE"',
    "npm run lint -- 'a; b'",
    'npm run lint # ; rm -rf x',
  ])('admits %j', (command) => {
    for (const rule of [glob, regex, kind]) expect(hit([rule], bash(command)), JSON.stringify(rule.match)).toBe(true);
  });

  it.each([
    'npm run lint; rm -rf x',
    'npm run lint && rm -rf x',
    'npm run lint || rm -rf x',
    'npm run lint | sh',
    'npm run lint & rm -rf x',
    'npm run lint &',
    'npm run lint\nrm -rf x',
    'npm run lint $(rm -rf x)',
    'npm run lint `rm -rf x`',
    'npm run lint "$(rm -rf x)"',
    'npm run lint ${X:-$(rm -rf x)}',
    'npm run lint $((x[$(rm -rf x)]))',
    'npm run lint <(rm -rf x)',
    'npm run lint >(rm -rf x)',
    'npm run lint > src/index.ts',
    'npm run lint >> ~/.bashrc',
    'npm run lint 2> log.txt',
    'npm run lint &> out',
    'npm run lint >& out',
    'npm run lint < /etc/passwd',
    'npm run lint <<EOF\nx\nEOF',
    'npm run lint "unterminated',
  ])('refuses %j', (command) => {
    for (const rule of [glob, regex, kind]) expect(hit([rule], bash(command)), JSON.stringify(rule.match)).toBe(false);
  });

  it('refuses a pattern that names the compound form too', () => {
    expect(hit([{ tool: 'Bash', match: { glob: '*' } }], bash('ls; rm -rf x'))).toBe(false);
    expect(hit([{ tool: 'Bash', match: { regex: '.*' } }], bash('(npm run lint)'))).toBe(false);
    expect(hit([{ tool: 'Bash', match: { glob: '*' } }], bash('{ npm run lint; }'))).toBe(false);
    expect(hit([{ tool: 'Bash', match: { glob: '*' } }], bash('! npm run lint'))).toBe(false);
    expect(hit([{ tool: 'Bash', match: { glob: '*' } }], bash('FOO=$(id)'))).toBe(false);
  });

  it('keeps an exact rule matching its exact compound text, which the person saw whole', () => {
    expect(hit([{ tool: 'Bash', match: { exact: 'npm run lint; echo done' } }], bash('npm run lint; echo done'))).toBe(true);
    expect(hit([{ tool: 'Bash', match: { exact: 'npm run lint; echo done' } }], bash('npm run lint; echo done; rm -rf x'))).toBe(false);
  });

  it('admits an argv command (one simple command by construction)', () => {
    const call: AlwaysAllowCall = { tool: 'shell', kind: 'shell', paths: [], input: { command: ['npm', 'run', 'lint', ';', 'rm'] } };
    expect(hit([{ tool: 'shell', match: { glob: 'npm run lint*' } }], call)).toBe(true);
  });

  it('leaves path and JSON keys to the pattern alone', () => {
    expect(hit([{ tool: 'Write', match: { glob: 'docs/**' } }], write('docs/a; b.md'))).toBe(true);
  });
});

describe('compileAlwaysAllow', () => {
  it('returns an invalid regex as an error value, not an exception', () => {
    const r = compileAlwaysAllow([{ tool: 'Bash', match: { regex: '(unclosed' } }]);
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('not a valid regular expression') });
  });

  it('refuses a rule with two matchers, no tool, or an unknown kind', () => {
    const both = { tool: 'Bash', match: { exact: 'a', regex: 'a' } } as unknown as AlwaysAllowRule;
    expect(compileAlwaysAllow([both]).ok).toBe(false);
    expect(compileAlwaysAllow([{ tool: '', match: { exact: 'a' } }]).ok).toBe(false);
    expect(compileAlwaysAllow([{ tool: 'kind:network', match: { exact: 'a' } }]).ok).toBe(false);
  });
});

describe('rulesForAlways', () => {
  it('adds an exact rule for the command, which then matches only that command', () => {
    const rules = rulesForAlways(bash('rm -rf dist'));
    expect(rules).toEqual([{ tool: 'Bash', match: { exact: 'rm -rf dist' } }]);
    expect(hit(rules, bash('rm -rf dist'))).toBe(true);
    expect(hit(rules, bash('rm -rf dist src'))).toBe(false);
  });

  it('adds one exact rule per path of a write', () => {
    const rules = rulesForAlways(write('docs/a.md'));
    expect(rules).toEqual([{ tool: 'Write', match: { exact: 'docs/a.md' } }]);
    expect(hit(rules, write('docs/a.md'))).toBe(true);
    expect(hit(rules, write('docs/b.md'))).toBe(false);
  });
});
