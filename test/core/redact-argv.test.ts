// Which words of a command line are secrets to hide: environment values, secret option values,
// credential headers, URL userinfo and the same inside scripts, and nothing that merely looks like them.
import { describe, expect, it } from 'vitest';
import { carriesSecret, redactArgv, redactText } from '../../src/core/redact-argv.js';

describe('redactArgv', () => {
  it('hides environment values and keeps their names', () => {
    expect(redactArgv(['env', 'ANTHROPIC_API_KEY=sk-1', '_X=a=b', 'claude'])).toEqual(['env', 'ANTHROPIC_API_KEY=***', '_X=***', 'claude']);
  });

  it('hides the value of secret-named options, separate or after =', () => {
    expect(redactArgv(['codex', '--api-key', 'k', '--token=t', '-password', 'p', '--client-secret', 's', '--auth', 'a'])).toEqual([
      'codex',
      '--api-key',
      '***',
      '--token=***',
      '-password',
      '***',
      '--client-secret',
      '***',
      '--auth',
      '***',
    ]);
  });

  it('hides option names written with an underscore and --bearer', () => {
    expect(redactArgv(['codex', '--api_key', 'sk-2', '--access_token=t', '--bearer', 'x'])).toEqual(['codex', '--api_key', '***', '--access_token=***', '--bearer', '***']);
  });

  it('hides an assignment inside a -c script, after export or before a command', () => {
    expect(redactArgv(['sh', '-c', 'export OPENAI_API_KEY=sk-1; codex'])).toEqual(['sh', '-c', 'export OPENAI_API_KEY=***; codex']);
    expect(redactArgv(['bash', '-lc', 'cd x && TOKEN="a b" codex --api-key sk-3'])).toEqual(['bash', '-lc', 'cd x && TOKEN=*** codex --api-key ***']);
  });

  it('hides credential headers given with -H or --header', () => {
    expect(redactArgv(['curl', '-H', 'Authorization: Bearer abc.def', '--header', 'X-Api-Key: k1', '--header=Authorization: Basic dTpw'])).toEqual([
      'curl',
      '-H',
      'Authorization: ***',
      '--header',
      'X-Api-Key: ***',
      '--header=Authorization: ***',
    ]);
    expect(redactArgv(['curl', '-H', 'Accept: application/json'])).toEqual(['curl', '-H', 'Accept: application/json']);
  });

  it('hides the userinfo of a URL and keeps the host', () => {
    expect(redactArgv(['git', 'clone', 'https://u:ghp_abc@github.com/o/r', 'https://ghp_xyz@github.com/o/r', 'https://github.com/o/r'])).toEqual([
      'git',
      'clone',
      'https://u:***@github.com/o/r',
      'https://***@github.com/o/r',
      'https://github.com/o/r',
    ]);
  });

  it("hides -p<password> only for MySQL's clients, where -p is the password", () => {
    expect(redactArgv(['mysql', '-u', 'root', '-psecret'])).toEqual(['mysql', '-u', 'root', '-p***']);
    expect(redactArgv(['claude', '-p', 'fix the bug'])).toEqual(['claude', '-p', 'fix the bug']);
    expect(redactArgv(['ssh', '-p2222', 'host'])).toEqual(['ssh', '-p2222', 'host']);
  });

  it('leaves ordinary words, options and option values alone', () => {
    const argv = ['git', 'commit', '--author', 'Ana <a@b>', '--format=%H', '-m', 'x', '--', '1=2', 'bash', '-l'];
    expect(redactArgv(argv)).toEqual(argv);
    expect(carriesSecret(argv)).toBe(false);
    expect(carriesSecret(['FOO=bar', 'claude'])).toBe(true);
  });

  it('counts every kind of hidden value as carrying a secret, as the dashboard form needs', () => {
    for (const argv of [
      ['sh', '-c', 'export K=v; codex'],
      ['codex', '--api_key', 'x'],
      ['curl', '-H', 'Authorization: Bearer t'],
      ['git', 'clone', 'https://t@h/r'],
      ['x', '--bearer', 'y'],
    ]) {
      expect(carriesSecret(argv)).toBe(true);
    }
  });
});

describe('redactText', () => {
  it('hides NAME=value words quoted in a message', () => {
    expect(redactText('command not found: "API_KEY=sk-1" is not on PATH')).toBe('command not found: "API_KEY=***" is not on PATH');
    expect(redactText('cwd "/a=b" is outside')).toBe('cwd "/a=b" is outside');
  });

  it('hides secret option values, headers and URL userinfo quoted in a message', () => {
    expect(redactText('codex --api-key sk-9 --token=t2 failed')).toBe('codex --api-key *** --token=*** failed');
    expect(redactText("curl -H 'Authorization: Bearer zz' https://u:p@h/x")).toBe("curl -H 'Authorization: ***' https://u:***@h/x");
    expect(redactText('mysql -u r -pzz; ls -p')).toBe('mysql -u r -p***; ls -p');
  });
});
