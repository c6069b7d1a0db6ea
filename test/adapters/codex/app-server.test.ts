// The Codex app-server client over a real child process that speaks Codex's dialect (JSONL on
// stdio, no "jsonrpc" member): lines split across writes, noise on stdout, a server→client request
// while a call waits, error answers, and a server that dies mid-call. The real Codex is in trust.test.ts.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodexAppServer } from '../../../src/adapters/codex/app-server.js';
import { JsonRpcError } from '../../../src/protocol/rpc-errors.js';

/**
 * A stand-in `codex app-server`: it answers `initialize` only after asking the client for an
 * approval and hearing back, `seen` with every line it has read, `fail` with an error, `die` by
 * exiting; before each answer it writes a line that is not JSON and a notification.
 */
const FAKE_SERVER = `
const seen = [];
let buffer = '';
let initId = null;
const write = (msg) => {
  const line = JSON.stringify(msg) + '\\n';
  const half = Math.floor(line.length / 2);
  // Half a line now, the rest a moment later: the client must join them.
  process.stdout.write(line.slice(0, half));
  setTimeout(() => process.stdout.write(line.slice(half)), 5);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    seen.push(line);
    const msg = JSON.parse(line);
    process.stdout.write('codex: a log line on stdout\\n');
    process.stdout.write(JSON.stringify({ method: 'configWarning', params: { summary: 'noise' } }) + '\\n');
    if (msg.method === 'initialize') {
      initId = msg.id;
      write({ id: 'approval-1', method: 'item/commandExecution/requestApproval', params: { command: 'rm -rf /' } });
    } else if (msg.id === 'approval-1') {
      write({ id: initId, result: { userAgent: 'fake' } });
    } else if (msg.method === 'seen') {
      write({ id: msg.id, result: seen });
    } else if (msg.method === 'fail') {
      write({ id: msg.id, error: { code: -32600, message: 'Invalid request: unknown field', data: { field: 'cwds' } } });
    } else if (msg.method === 'die') {
      process.stderr.write('warming up\\nfatal: config.toml is unreadable\\n');
      process.exit(3);
    }
  }
});
`;

let dir: string;
let bin: string;
let server: CodexAppServer | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gh-codex-app-server-'));
  bin = join(dir, 'codex');
  writeFileSync(bin, `#!${process.execPath}\n${FAKE_SERVER}`);
  chmodSync(bin, 0o755);
});
afterEach(async () => {
  await server?.close();
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('CodexAppServer', () => {
  it("speaks Codex's dialect: no version member, split lines joined, noise skipped, its approval request refused", async () => {
    server = await CodexAppServer.start(bin);
    const seen = (await server.call<string[]>('seen', { cwds: [dir] })).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(seen).toEqual([
      { id: 1, method: 'initialize', params: { clientInfo: { name: 'gatehouse', title: 'Gatehouse', version: '1' }, capabilities: null } },
      {
        id: 'approval-1',
        error: { code: -32601, message: 'no method "item/commandExecution/requestApproval" here: this client serves no calls', data: { name: 'method_not_found' } },
      },
      { method: 'initialized' },
      { id: 2, method: 'seen', params: { cwds: [dir] } },
    ]);
  });

  it("rejects with the server's error as a JsonRpcError", async () => {
    server = await CodexAppServer.start(bin);
    const err = await server.call('fail', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err).toMatchObject({ code: -32600, message: 'Invalid request: unknown field', data: { field: 'cwds' } });
  });

  it('fails the call in flight, and later ones, with the exit and the last line of stderr when the server dies', async () => {
    server = await CodexAppServer.start(bin);
    await expect(server.call('die', {})).rejects.toThrow('codex app-server exited (3): fatal: config.toml is unreadable');
    await expect(server.call('seen', {})).rejects.toThrow('codex app-server exited (3)');
  });

  it('fails every call once closed', async () => {
    server = await CodexAppServer.start(bin);
    await server.close();
    await expect(server.call('seen', {})).rejects.toThrow('codex app-server closed');
  });
});
