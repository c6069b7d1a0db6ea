// A read-only command that names a file holding credentials by convention asks: it would print
// the credential into the model's context. Commands that show only names, sizes or digests, and
// the public halves and committed examples, stay approved.
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../src/index.js';

const cls = (command: string): string => analyzeShell(command, { cwd: '/srv/app' }).class;

describe('credential files', () => {
  it.each([
    'cat ~/.aws/credentials',
    'cat $HOME/.ssh/id_rsa',
    'head -n 3 /home/u/.ssh/id_ed25519',
    'cat .env',
    'less .env.production',
    'jq . ~/.docker/config.json',
    'cat ~/.kube/config',
    'cat ~/.config/gh/hosts.yml',
    'grep token ~/.npmrc',
    'cat ~/.netrc',
    'cat .git-credentials',
    'cat server.key',
    'cat certs/tls.pem',
    'cat config/secrets.yml',
    'cat terraform.tfstate',
    'cat prod.tfvars',
    'grep -r password --include=*.yml ~/.aws/',
    'printenv',
    'env',
    'printenv GITHUB_TOKEN',
    'printenv ANTHROPIC_API_KEY',
  ])('asks for `%s`', (command) => {
    expect(cls(command)).toBe('ask');
  });

  it.each([
    'cat ~/.ssh/id_ed25519.pub',
    'cat ~/.ssh/known_hosts',
    'cat .env.example',
    'cat .env.sample',
    'ls -la ~/.ssh',
    'wc -l .env',
    'sha256sum server.key',
    'stat ~/.aws/credentials',
    'openssl x509 -noout -subject -in cert.pem',
    'printenv HOME PATH',
    'cat README.md',
  ])('approves `%s`', (command) => {
    expect(cls(command)).toBe('approve');
  });

  it.each([
    'cd ~/.kube && cat config',
    'cd /home/u/.ssh && cat id_ed25519',
    'cd ~/.aws; head credentials',
    'cat /proc/self/environ',
    'tr "\\0" "\\n" < /proc/1/environ',
    'strings /proc/42/environ',
    'cat < ~/.aws/credentials',
    'wc -c < .env && head -n 1 < .env',
  ])('asks for `%s`: a credential file named from the folder the command runs in, or a process environment', (command) => {
    expect(analyzeShell(command, { cwd: '/srv/app', home: '/home/u' }).class).toBe('ask');
  });

  it('approves reading an ordinary file after cd into an ordinary folder', () => {
    expect(analyzeShell('cd docs && cat config', { cwd: '/srv/app', home: '/home/u' }).class).toBe('approve');
  });
});
