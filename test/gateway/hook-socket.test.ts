// The sandboxed hook transport with real processes: a session started by the CLI, the socket
// endpoint in this process, and the perl client the rendered hook runs. It gives the cold
// hook's verdict byte for byte, and refuses, in the agent's own form, whenever the
// supervisor cannot answer.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeOutput } from '../../src/adapters/claude/output.js';
import { parseSocketCall, socketReply, startHookSocket, type HookSocket } from '../../src/gateway/hook-socket.js';
import { SANDBOX_SOCKET_NAME } from '../../src/core/sandbox.js';
import { gatehouse, tempDir } from '../support/cli.js';
import { runRenderedHook } from '../support/rendered-hook.js';

const CLIENT = resolve('src/cli/socket-hook.pl');
const hasPerl = spawnSync('perl', ['-e', '0']).status === 0;

let root: string;
let state: string;
let id: string;
let digest: string;
let socket: HookSocket | null = null;

beforeEach(() => {
  const base = tempDir('gh-sock-');
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--transport', 'command', '--json']);
  expect(r.status, r.stderr).toBe(0);
  const started = JSON.parse(r.stdout) as { session_id: string };
  id = started.session_id;
  digest = /--policy-sha256 ([0-9a-f]{64})/.exec(JSON.stringify(runRenderedCommandText()))![1]!;
});

afterEach(async () => {
  await socket?.close();
  socket = null;
  gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]);
});

function runRenderedCommandText(): string {
  return spawnSync('cat', [join(root, '.claude', 'settings.local.json')], { encoding: 'utf8' }).stdout;
}

const write = (file: string, content = 'x'): unknown => ({ session_id: 's', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, file), content } });

/** Runs the perl client as the rendered hook would, against `dir`'s socket. */
function client(
  dir: string,
  event: string,
  payload: unknown,
  opts: { session?: string; deadline?: number; kind?: 'pre_tool' | 'stop'; agent?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const args = [CLIENT, join(dir, SANDBOX_SOCKET_NAME), opts.session ?? id, event, opts.agent ?? 'claude', '0', String(opts.deadline ?? 30), digest, join(dir, `refuse-${opts.kind ?? 'pre_tool'}`)];
  return new Promise((done) => {
    const child = spawn('perl', args, { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('close', (status) => done({ status, stdout, stderr }));
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  });
}

async function open(): Promise<HookSocket> {
  socket = await startHookSocket({ projectState: state, sessionId: id, output: claudeOutput });
  return socket;
}

describe.skipIf(!hasPerl)('the sandboxed hook transport', () => {
  it("gives the cold hook's verdict, byte for byte, for an allowed and a refused write", async () => {
    const s = await open();
    for (const file of ['src/a.ts', 'package.json']) {
      const viaSocket = await client(s.dir, 'PreToolUse', write(file));
      const cold = runRenderedHook(root, 'PreToolUse', write(file));
      expect({ status: viaSocket.status, stdout: viaSocket.stdout, stderr: viaSocket.stderr }).toEqual(cold);
    }
    expect((await client(s.dir, 'PreToolUse', write('package.json'))).stderr).toContain("outside this task's allowed paths");
    expect(s.samplesUs.length).toBe(3);
  });

  it('fails closed on an infrastructure failure, whatever fail-closed flag the caller sends', async () => {
    const s = await open();
    // Any process in the sandbox can call the socket and claim fail-open (`0`, as `client` sends);
    // an agent with no hook adapter is an infrastructure failure, as a hook rendered by a newer Gatehouse would be.
    const r = await client(s.dir, 'PreToolUse', write('src/a.ts'), { agent: 'nosuch' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('fail-closed');
    // Input that is not JSON is the caller's: refused in any posture.
    const bad = await client(s.dir, 'PreToolUse', 'this is not JSON');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('not valid JSON');
  });

  it('carries a large hook input whole', async () => {
    const s = await open();
    const big = write('src/big.ts', 'y'.repeat(3 * 1024 * 1024));
    expect((await client(s.dir, 'PreToolUse', big)).status).toBe(0);
  });

  it('refuses once the supervisor is gone: a tool call is blocked, a stop halts the agent', async () => {
    const s = await open();
    const dir = mkdtempSync(join(tmpdir(), 'gh-sock-copy-'));
    try {
      // The sandbox keeps its view of the folder; model that with a copy of the refusal files and no socket behind them.
      spawnSync('cp', [join(s.dir, 'refuse-pre_tool'), join(s.dir, 'refuse-stop'), dir]);
      await s.close();
      socket = null;
      const pre = await client(dir, 'PreToolUse', write('src/a.ts'));
      expect(pre.status).toBe(2);
      expect(pre.stderr).toContain('cannot be reached');
      const stop = await client(dir, 'Stop', { session_id: 's', hook_event_name: 'Stop', cwd: root }, { kind: 'stop' });
      expect(stop.status).toBe(0);
      expect(JSON.parse(stop.stdout)).toMatchObject({ continue: false });
      expect(JSON.parse(stop.stdout).stopReason).toContain('cannot be reached');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses even without its refusal file', async () => {
    const r = await client(tempDir(), 'PreToolUse', write('src/a.ts'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cannot be reached');
  });

  it("refuses a call in another session's name: the endpoint answers only its own", async () => {
    const s = await open();
    const r = await client(s.dir, 'PreToolUse', write('src/a.ts'), { session: 'someone-else' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cannot be reached');
    expect(s.samplesUs.length).toBe(0);
  });

  it('ends even while a caller holds a connection open', async () => {
    const s = await open();
    const { connect } = await import('node:net');
    const held = connect(join(s.dir, SANDBOX_SOCKET_NAME));
    await new Promise<void>((r) => held.once('connect', () => r()));
    held.write('GATEHOUSE1');
    await s.close();
    socket = null;
    held.destroy();
  });

  it('refuses after its deadline when the supervisor never answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-sock-mute-'));
    const held: Socket[] = [];
    const mute = createServer((c) => void held.push(c));
    await new Promise<void>((r) => mute.listen(join(dir, SANDBOX_SOCKET_NAME), r));
    try {
      const r = await client(dir, 'PreToolUse', write('src/a.ts'), { deadline: 1 });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('no answer within 1 s');
    } finally {
      for (const c of held) c.destroy();
      await new Promise<void>((r) => mute.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseSocketCall and socketReply', () => {
  const head = (s: string, cwd: string, body: string): Buffer =>
    Buffer.from(`GATEHOUSE1 ${s} PreToolUse claude 0 ${'a'.repeat(64)} ${Buffer.byteLength(cwd)} ${Buffer.byteLength(body)}\n${cwd}${body}`);

  it('reads a complete call, waits for a partial one, and rejects anything else', () => {
    expect(parseSocketCall(head('s1', '/w', '{}'), 's1')).toEqual({ event: 'PreToolUse', agent: 'claude', failClosed: false, policyDigest: 'a'.repeat(64), cwd: '/w', stdin: '{}' });
    const whole = head('s1', '/wörk', '{"a":"é"}');
    expect(parseSocketCall(whole.subarray(0, whole.length - 1), 's1')).toBe('incomplete');
    expect(parseSocketCall(Buffer.from('GATEHOUSE1 s1'), 's1')).toBe('incomplete');
    expect(parseSocketCall(head('s2', '/w', '{}'), 's1')).toBeNull();
    expect(parseSocketCall(Buffer.from('GET / HTTP/1.0\n'), 's1')).toBeNull();
    expect(parseSocketCall(Buffer.from('x'.repeat(2000)), 's1')).toBeNull();
    expect(parseSocketCall(head('s1', '', '{}'), 's1')).toBeNull();
  });

  it('counts bytes, not characters, in a reply', () => {
    expect(socketReply({ exitCode: 2, stdout: '', stderr: 'é\n' }).toString('utf8')).toBe('GATEHOUSE1 2 0 3\né\n');
  });
});
