// Which words of a command line are secrets to hide: environment values and the values
// of secret-named options, and nothing that merely looks like them.
import { describe, expect, it } from 'vitest';
import { carriesSecret, redactArgv, redactText } from '../../src/core/redact-argv.js';

describe('redactArgv', () => {
  it('hides environment values and keeps their names', () => {
    expect(redactArgv(['env', 'ANTHROPIC_API_KEY=sk-1', '_X=a=b', 'claude'])).toEqual(['env', 'ANTHROPIC_API_KEY=***', '_X=***', 'claude']);
  });

  it('hides the value of secret-named options, separate or after =', () => {
    expect(redactArgv(['codex', '--api-key', 'k', '--token=t', '-password', 'p', '--client-secret', 's', '--auth', 'a'])).toEqual([
      'codex', '--api-key', '***', '--token=***', '-password', '***', '--client-secret', '***', '--auth', '***',
    ]);
  });

  it('leaves ordinary words, options and option values alone', () => {
    const argv = ['git', 'commit', '--author', 'Ana <a@b>', '--format=%H', '-m', 'x', '--', '1=2', 'bash', '-l'];
    expect(redactArgv(argv)).toEqual(argv);
    expect(carriesSecret(argv)).toBe(false);
    expect(carriesSecret(['FOO=bar', 'claude'])).toBe(true);
  });
});

describe('redactText', () => {
  it('hides NAME=value words quoted in a message', () => {
    expect(redactText('command not found: "API_KEY=sk-1" is not on PATH')).toBe('command not found: "API_KEY=***" is not on PATH');
    expect(redactText('cwd "/a=b" is outside')).toBe('cwd "/a=b" is outside');
  });
});
