// The public URL decides where answer links point and which Host the server accepts besides
// loopback: a project's config (which a cloned repository brings) cannot choose it alone.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicUrlIn } from '../../../src/runtime/notify/index.js';
import { rawRequest } from '../../gateway/support.js';
import { CLI, gatehouse, tempDir } from '../../support/cli.js';

describe('publicUrlIn', () => {
  it('takes --public-url first, then GATEHOUSE_PUBLIC_URL alone', () => {
    expect(publicUrlIn('https://a.example', 'https://b.example', {})).toEqual({ ok: true, value: 'https://a.example/' });
    expect(publicUrlIn(undefined, undefined, { GATEHOUSE_PUBLIC_URL: 'https://mine.example' })).toEqual({ ok: true, value: 'https://mine.example/' });
    expect(publicUrlIn(undefined, undefined, {})).toEqual({ ok: true, value: null });
  });

  it("takes the project's notify.public_url only when GATEHOUSE_PUBLIC_URL says the same", () => {
    expect(publicUrlIn(null, 'https://team.example/gh', { GATEHOUSE_PUBLIC_URL: 'https://team.example/gh/' })).toEqual({ ok: true, value: 'https://team.example/gh/' });
    for (const env of [{}, { GATEHOUSE_PUBLIC_URL: 'https://other.example' }]) {
      const r = publicUrlIn(null, 'https://evil.example', env);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/notify\.public_url names https:\/\/evil\.example\/.*a repository's config cannot choose that alone.*--public-url https:\/\/evil\.example\//);
    }
  });

  it('says which setting is malformed', () => {
    expect(publicUrlIn(undefined, undefined, { GATEHOUSE_PUBLIC_URL: 'ftp://x' })).toEqual({ ok: false, reason: expect.stringMatching(/^GATEHOUSE_PUBLIC_URL: must be an http/) });
    expect(publicUrlIn(undefined, 'https://x.example/?q=1', {})).toEqual({ ok: false, reason: expect.stringMatching(/^gatehouse\.yaml notify\.public_url: must not have a query/) });
  });
});

describe('gatehouse serve with a public_url in the project config', { timeout: 60_000 }, () => {
  function project(): { worktree: string; env: NodeJS.ProcessEnv } {
    const root = tempDir('gh-public-');
    const worktree = join(root, 'repo');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(worktree, 'gatehouse.yaml'), 'notify:\n  public_url: http://evil.example:7337\n');
    return { worktree, env: { GATEHOUSE_HOME: join(root, 'home') } };
  }

  it('refuses to start (exit 2) and so never accepts requests addressed to that host', () => {
    const p = project();
    const r = gatehouse(['serve', '--worktree', p.worktree, '--port', '0'], { env: p.env });
    expect(r.stderr).toContain("a repository's config cannot choose that alone");
    expect(r.status).toBe(2);
  });

  it('with GATEHOUSE_PUBLIC_URL saying the same, starts and accepts that Host', async () => {
    const p = project();
    const child = spawn(process.execPath, [CLI, 'serve', '--worktree', p.worktree, '--port', '0'], {
      env: { ...process.env, ...p.env, GATEHOUSE_PUBLIC_URL: 'http://evil.example:7337' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /dashboard: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.on('close', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const through = await rawRequest(port, { method: 'GET', path: '/', headers: { host: 'evil.example:7337' } });
      expect(through.status).not.toBe(403);
      const other = await rawRequest(port, { method: 'GET', path: '/', headers: { host: 'other.example:7337' } });
      expect(other.status).toBe(403);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
