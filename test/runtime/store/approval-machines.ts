// Test "machines" for the team approval queue: each is a separate node process (the bundled
// fixtures/approval-machine.ts) with its own GATEHOUSE_HOME and state folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestPostgres } from '../../support/postgres.js';
import { bundleFixture } from '../../support/bundle-fixture.js';

type Line = Record<string, unknown>;

/** Bundles the machine program to one .mjs in `dir` (tests run TypeScript; a child needs JavaScript). */
export function bundleMachine(dir: string): string {
  return bundleFixture('test/runtime/store/fixtures/approval-machine.ts', dir, 'approval-machine');
}

/** One machine's folders: its state base (GATEHOUSE_HOME, which holds its machine id) and its project state. */
export interface MachineDirs {
  home: string;
  state: string;
}

/** Fresh folders for a machine under `root`. */
export function machineDirs(root: string, name: string): MachineDirs {
  const home = join(root, name, 'home');
  const state = join(root, name, 'state');
  mkdirSync(home, { recursive: true });
  mkdirSync(state, { recursive: true });
  return { home, state };
}

/** A running machine process: send it commands, wait for the lines it prints. */
export class MachineProcess {
  readonly lines: Line[] = [];
  private readonly waiters: { match: (l: Line) => boolean; res: (l: Line) => void }[] = [];
  readonly exited: Promise<number | null>;
  stderr = '';

  private constructor(readonly child: ChildProcess) {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (text) => {
      const line = JSON.parse(text) as Line;
      this.lines.push(line);
      for (const w of [...this.waiters]) {
        if (!w.match(line)) continue;
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.res(line);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((r) => child.on('exit', (code) => r(code)));
  }

  /**
   * Starts `role` on `dirs`. The hook role gets no store and no password: hooks never connect.
   * @example const b = await MachineProcess.start(script, 'relay', dirsB, pg);
   */
  static async start(script: string, role: 'hook' | 'relay' | 'store', dirs: MachineDirs | null, pg: TestPostgres | null, relayOpts?: object): Promise<MachineProcess> {
    const args = [script, role, dirs?.state ?? '-'];
    const env: NodeJS.ProcessEnv = { ...process.env, GATEHOUSE_HOME: dirs?.home ?? mkdtempSync(join(tmpdir(), 'gh-resolver-')) };
    if (pg !== null && role !== 'hook') args.push(pg.url, pg.passwordEnv, ...(relayOpts === undefined ? [] : [JSON.stringify(relayOpts)]));
    else for (const k of Object.keys(env)) if (k.startsWith('GH_TEST_PG_PASSWORD')) delete env[k];
    const m = new MachineProcess(spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env }));
    await m.next((l) => 'ready' in l || 'error' in l);
    const err = m.lines.find((l) => 'error' in l);
    if (err !== undefined) throw new Error(`machine ${role} failed to start: ${String(err.error)} ${m.stderr}`);
    return m;
  }

  send(command: Line): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** The first line printed (from now on or already) that `match` accepts. */
  next(match: (l: Line) => boolean, after = 0): Promise<Line> {
    const seen = this.lines.slice(after).find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((res, rej) => {
      this.waiters.push({ match, res });
      void this.exited.then((code) => rej(new Error(`machine exited (${code}) before the expected line; stderr: ${this.stderr}`)));
    });
  }

  /** Sends `command` and waits for the first line after it that `match` accepts. */
  async ask(command: Line, match: (l: Line) => boolean): Promise<Line> {
    const mark = this.lines.length;
    this.send(command);
    return this.next(match, mark);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 1_000);
    await this.exited;
    clearTimeout(t);
  }
}

/** A temp folder for a test file's machines. */
export function tempRoot(): { root: string; dispose: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'gh-team-approvals-'));
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
