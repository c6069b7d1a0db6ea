// The dashboard's pure text helpers: ages, exits, titles and command-line splitting.
import { describe, expect, it } from 'vitest';
import { formatAge, formatExit, lines, sessionTitle, splitCommandLine, timeMs } from '../../src/web/format.js';

describe('formatAge', () => {
  it.each([
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m'],
    [3_599_000, '59m'],
    [3_600_000, '1h'],
    [86_400_000 * 3, '3d'],
    [-5_000, '0s'],
  ])('shows %i ms as %s', (ms, text) => {
    expect(formatAge(1_000_000, 1_000_000 + ms)).toBe(text);
  });

  it('shows an unreadable time as ?', () => {
    expect(formatAge(timeMs('not a date'), Date.now())).toBe('?');
  });
});

describe('formatExit', () => {
  it('is empty while running', () => {
    expect(formatExit(null)).toBe('');
  });

  it('shows the exit code of a process that ended on its own', () => {
    expect(formatExit({ exit_code: 3, signal: null, reason: 'exited' })).toBe('exit 3');
  });

  it('shows why a session was ended and by which signal', () => {
    expect(formatExit({ exit_code: null, signal: 'SIGHUP', reason: 'evicted' })).toBe('evicted · SIGHUP');
  });

  it('shows a session closed from the dashboard by the signal that ended it', () => {
    expect(formatExit({ exit_code: null, signal: 'SIGKILL', reason: 'closed' })).toBe('closed · SIGKILL');
  });
});

describe('sessionTitle', () => {
  it('prefers the label, then the command line with the program base name', () => {
    expect(sessionTitle({ command: '/bin/bash', args: ['-l'], label: 'claude: fix the parser' })).toBe('claude: fix the parser');
    expect(sessionTitle({ command: '/usr/bin/bash', args: ['-l'] })).toBe('bash -l');
  });
});

describe('splitCommandLine', () => {
  it.each([
    ['', []],
    ['  bash   -l ', ['bash', '-l']],
    [`git commit -m "first try"`, ['git', 'commit', '-m', 'first try']],
    [`echo 'a "b"' "c \\"d\\" \\x"`, ['echo', 'a "b"', 'c "d" \\x']],
    ['a\\ b c', ['a b', 'c']],
    [`say ''`, ['say', '']],
    ['a\\\nb', ['ab']],
  ])('splits %j', (line, argv) => {
    expect(splitCommandLine(line)).toEqual(argv);
  });

  it('refuses an unclosed quote and a trailing lone backslash, as the server does', () => {
    expect(splitCommandLine(`echo "oops`)).toBeNull();
    expect(splitCommandLine('echo \\')).toBeNull();
  });
});

describe('lines', () => {
  it('keeps the non-empty trimmed lines', () => {
    expect(lines(' src/**\n\n  test/ \r\n')).toEqual(['src/**', 'test/']);
  });
});
