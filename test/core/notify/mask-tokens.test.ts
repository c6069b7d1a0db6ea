import { describe, expect, it } from 'vitest';
import { maskTokens } from '../../../src/core/notify/mask-tokens.js';
import { notifyMessage, oneLine } from '../../../src/core/notify/message.js';

describe('maskTokens', () => {
  it.each([
    ['ghp_0123456789abcdefghijABCDEFGHIJ', 'ghp_***'],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'github_pat_***'],
    ['sk-ant-api03-abcdefghijklmnopqrstuv', 'sk-ant-***'],
    ['sk-proj-abcdefghijklmnopqrstuvwx', 'sk-proj-***'],
    ['xoxb-1234567890-abcdefghij', 'xoxb-***'],
    ['AKIAIOSFODNN7EXAMPLE', 'AKIA***'],
    ['AIzaSyA-1234567890abcdefghijklmnopqrstu', 'AIza***'],
    ['glpat-abcdefghij0123456789', 'glpat-***'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'eyJ***'],
  ])('masks %s', (token, shown) => {
    expect(maskTokens(`curl -H "x: ${token}" https://x`)).toBe(`curl -H "x: ${shown}" https://x`);
  });

  it('leaves words, paths and commit hashes alone', () => {
    const text = 'git show 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -- src/task-runner.ts ask-me skip_this';
    expect(maskTokens(text)).toBe(text);
  });

  it('masks a private key block whole', () => {
    expect(maskTokens('echo "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----" > k')).toBe('echo "-----BEGIN PRIVATE KEY----- ***" > k');
  });
});

describe('notification text', () => {
  const item = (n: number) => ({ id: `ap-${n}`, session_id: 's', agent: 'claude', tool: 'Bash', summary: `Bash: step ${n}`, expires_at: '2030-01-01T00:00:00.000Z' });

  it('keeps one line per call, cut with a mark', () => {
    expect(oneLine('a'.repeat(200))).toBe(`${'a'.repeat(139)}…`);
    expect(oneLine('first\nsecond')).toBe('first …');
  });

  it('lists five calls of a burst and counts the rest', () => {
    const m = notifyMessage('shop', [1, 2, 3, 4, 5, 6, 7].map(item), 'https://gh.example.com/');
    expect(m.title).toBe('Gatehouse: 7 approvals needed in shop');
    expect(m.body.split('\n')).toEqual([
      'claude · Bash: Bash: step 1',
      'claude · Bash: Bash: step 2',
      'claude · Bash: Bash: step 3',
      'claude · Bash: Bash: step 4',
      'claude · Bash: Bash: step 5',
      '… and 2 more',
    ]);
    expect(m.click).toBe('https://gh.example.com/');
  });
});
