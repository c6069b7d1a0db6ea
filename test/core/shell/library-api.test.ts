import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../src/index.js';

describe('the package entry exports the shell classifier', () => {
  it('rates commands and names the rule and knowledge-base entry that decided', () => {
    const ctx = { cwd: '/srv/repo', protectedPaths: ['/srv/repo/.gatehouse/'] };
    const read = analyzeShell('docker ps -a --format "{{.Names}}" | head', ctx);
    expect(read).toMatchObject({ class: 'approve', rule: 'knowledge-base' });
    expect(analyzeShell('aws sts get-session-token', ctx)).toMatchObject({ class: 'ask', kb: expect.stringMatching(/^aws sts/) as unknown });
    expect(analyzeShell('echo x > /srv/repo/.gatehouse/k', ctx)).toMatchObject({ class: 'deny', rule: 'write-target' });
  });
});
