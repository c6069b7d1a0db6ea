// Starts the real `gatehouse serve` for a test project and stops it again.
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './cli.js';

/** A running supervisor: its process and dashboard URL (with the access token). */
export interface Served {
  child: ChildProcess;
  url: URL;
  /** Stops it (SIGTERM, resumed first if stopped) and waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `gatehouse serve` (default: on a free port); resolves once it prints its dashboard URL. */
export async function startServe(root: string, state: string, port = 0): Promise<Served> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--worktree', root, '--state-dir', state], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /dashboard: (\S+)/.exec(out);
      if (m) resolve(new URL(m[1]!));
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  };
  return { child, url, stop };
}

/** How many hook calls the supervisor decided itself (warm), from its stats endpoint (which needs the access token). */
export async function warmCalls(url: URL): Promise<number> {
  const r = await fetch(new URL('/api/hooks/stats', url), { headers: { authorization: `Bearer ${url.searchParams.get('token') ?? ''}` } });
  return ((await r.json()) as { samples_us: number[] }).samples_us.length;
}
