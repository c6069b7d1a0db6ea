// `gatehouse serve` at start: which project it supervises (--project), and what it says when its
// port is taken by another program (named by pid and command), and one supervisor per project.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../support/cli.js';
import { startServe, type Served } from '../support/serve.js';

const children: ChildProcess[] = [];
const served: Served[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
  for (const s of served.splice(0)) await s.stop();
});

function project(): { root: string; state: string } {
  const base = tempDir('gh-serve-');
  const root = join(base, 'repo');
  mkdirSync(root, { recursive: true });
  return { root, state: join(base, 'state') };
}

/** A real program listening on a free loopback port; resolves with its pid and port. */
async function listener(): Promise<{ pid: number; port: number }> {
  const script = "const s=require('net').createServer().listen(0,'127.0.0.1',()=>console.log(s.address().port))";
  const child = spawn(process.execPath, ['-e', script, 'port-squatter'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (code) => reject(new Error(`listener exited with ${code}`)));
  });
  return { pid: child.pid!, port };
}

/** Runs `gatehouse serve` to its exit (it exits at once when it cannot bind). */
function serveOnce(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'serve', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
}

describe('gatehouse serve on a busy port', () => {
  it('names the process that holds the port and suggests --port', async () => {
    const p = project();
    const { pid, port } = await listener();
    const r = serveOnce(['--port', String(port), '--project', p.root, '--state-dir', p.state]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use by pid ${pid} (`);
    expect(r.stderr).toContain('port-squatter');
    expect(r.stderr).toContain(`--port ${port + 1}`);
    expect(r.stderr).toContain('--port 0');
    expect(r.stderr).not.toContain('EADDRINUSE');
  });

  it('refuses a second supervisor for one project, on its port or any other, and leaves the first in place', async () => {
    const p = project();
    const first = await startServe(p.root, p.state);
    served.push(first);
    const record = readFileSync(join(p.state, 'gateway', 'supervisor.json'), 'utf8');
    const token = readFileSync(join(p.state, 'gateway', 'access-token'), 'utf8');
    for (const port of [first.url.port, '0']) {
      const r = serveOnce(['--port', port, '--project', p.root, '--state-dir', p.state]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`this project is already supervised by pid ${first.child.pid} on port ${first.url.port}`);
    }
    expect(readFileSync(join(p.state, 'gateway', 'supervisor.json'), 'utf8')).toBe(record);
    expect(readFileSync(join(p.state, 'gateway', 'access-token'), 'utf8')).toBe(token);
  });
});

describe('gatehouse serve --project', () => {
  it('supervises the folder it names, from any folder', async () => {
    const p = project();
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--project', p.root, '--state-dir', p.state], { cwd: tempDir(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('dashboard:')) resolve(text);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    expect(out).toContain(`gatehouse supervisor for ${p.root}\n`);
  });

  it('refuses a folder that does not exist, and --project with a different --worktree', () => {
    const p = project();
    const missing = serveOnce(['--port', '0', '--project', join(p.root, 'nope'), '--state-dir', p.state]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`the project folder ${join(p.root, 'nope')} does not exist`);
    const both = serveOnce(['--port', '0', '--project', p.root, '--worktree', p.state, '--state-dir', p.state]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('give one of them');
  });
});
