import { describe, expect, it } from 'vitest';
import { MAX_GATE_COMMAND_LENGTH, checkGateCommand } from '../../../src/core/turn/goal-gate-command.js';

describe('checkGateCommand', () => {
  it.each([
    ['npm test', ['npm', 'test']],
    [`pytest -k 'not slow'`, ['pytest', '-k', 'not slow']],
    ['make check TARGET=x', ['make', 'check', 'TARGET=x']],
    ['cargo test --workspace', ['cargo', 'test', '--workspace']],
    ['./scripts/check.sh', ['./scripts/check.sh']],
    ['go test ./...', ['go', 'test', './...']],
    ['npx vitest run test/core:unit', ['npx', 'vitest', 'run', 'test/core:unit']],
    ['node -e "1"', ['node', '-e', '1']],
  ])('accepts %s', (cmd, argv) => {
    expect(checkGateCommand(cmd)).toEqual({ ok: true, argv });
  });

  const forbidden: [string, string][] = [
    [';', 'semicolon'],
    ['&', 'ampersand'],
    ['|', 'pipe'],
    ['$', 'dollar sign'],
    ['`', 'backtick'],
    ['<', 'less-than'],
    ['>', 'greater-than'],
    ['*', 'asterisk'],
    ['?', 'question mark'],
    ['[', 'opening bracket'],
    [']', 'closing bracket'],
    ['(', 'opening parenthesis'],
    [')', 'closing parenthesis'],
    ['{', 'opening brace'],
    ['}', 'closing brace'],
    ['~', 'tilde'],
    ['!', 'exclamation mark'],
    ['#', 'hash'],
    ['%', 'percent sign'],
    ['^', 'caret'],
    ['\\', 'backslash'],
    ['\n', 'newline'],
    ['\t', 'tab'],
    ['\0', 'NUL'],
    ['\r', 'carriage return'],
    [',', 'U+002C'],
    ['@', 'U+0040'],
    ['+', 'U+002B'],
    ['é', 'not ASCII'],
    ['\u00a0', 'not ASCII'],
    ['😀', 'U+1F600'],
  ];
  it.each(forbidden)('refuses %j and names it (%s)', (ch, name) => {
    const r = checkGateCommand(`npm test${ch}x`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toContain(name);
    expect(r.reason).toContain('at character 9');
    expect(r.reason).toContain('put them in a script');
  });

  it('refuses the classic injections', () => {
    for (const cmd of ['npm test; rm -rf /', 'npm test && curl x', 'echo $(id)', 'cat /etc/passwd > out', 'npm test || true']) {
      expect(checkGateCommand(cmd).ok).toBe(false);
    }
  });

  it('shows a printable offending character and not an invisible one', () => {
    const semi = checkGateCommand('a;b');
    const nl = checkGateCommand('a\nb');
    expect(!semi.ok && semi.reason).toContain('";" (semicolon, U+003B)');
    expect(!nl.ok && nl.reason).toContain('contains (newline, U+000A)');
  });

  it('refuses an empty or blank command', () => {
    expect(checkGateCommand('').ok).toBe(false);
    expect(checkGateCommand('   ').ok).toBe(false);
  });

  it('refuses unbalanced quotes', () => {
    const r = checkGateCommand(`pytest -k 'not slow`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain('balance its quotes');
  });

  it(`refuses a command longer than ${MAX_GATE_COMMAND_LENGTH} characters`, () => {
    expect(checkGateCommand(`echo ${'a'.repeat(MAX_GATE_COMMAND_LENGTH)}`).ok).toBe(false);
    expect(checkGateCommand(`echo ${'a'.repeat(MAX_GATE_COMMAND_LENGTH - 5)}`).ok).toBe(true);
  });
});
