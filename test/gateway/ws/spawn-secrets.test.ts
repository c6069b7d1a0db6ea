// Secrets on a command line over a real WebSocket: `KEY=value` and `--api-key value` are
// hidden in every echo of the spawn (its result, pty.list, pty.spawned, a second client, errors).
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../../src/gateway/pty/index.js';
import type { RpcClient, WsHarness } from './support.js';
import { operator, startWsHarness } from './support.js';

/** What a user pastes into the command line: an API key, as `env` takes it. */
const SECRET = 'sk-ant-do-not-show-0123456789';

let h: WsHarness | undefined;
const clients: RpcClient[] = [];

async function client(): Promise<RpcClient> {
  if (h === undefined) throw new Error('no harness');
  const c = await operator(h);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

describe('spawn parameters never carry secrets back', () => {
  it('hides env values and secret option values in the spawn result, pty.list and pty.spawned, to every client', async () => {
    h = await startWsHarness();
    const spawner = await client();
    const watcher = await client();
    const info = await spawner.ok<PtyInfo>('pty.spawn', { command: 'env', args: [`ANTHROPIC_API_KEY=${SECRET}`, 'MODE=fast', '/bin/sh', '-c', 'sleep 30', '--api-key', SECRET, `--token=${SECRET}`] });
    const shown = ['env', 'ANTHROPIC_API_KEY=***', 'MODE=***', '/bin/sh', '-c', 'sleep 30', '--api-key', '***', '--token=***'];
    expect([info.command, ...info.args]).toEqual(shown);
    const listed = await watcher.ok<{ sessions: PtyInfo[] }>('pty.list');
    expect(listed.sessions.map((s) => [s.command, ...s.args])).toEqual([shown]);
    const spawned = await watcher.waitEvent('pty.spawned', (e) => e.data.session_id === info.id);
    expect(JSON.stringify(spawned)).not.toContain(SECRET);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    // Server-side callers (the TUI, logs) see the same masked view.
    expect(h.manager.list()[0]?.args).toContain('ANTHROPIC_API_KEY=***');
  });

  it('hides the value in a refusal that quotes the command', async () => {
    h = await startWsHarness();
    const c = await client();
    const reply = await c.call('pty.spawn', { command: `OPENAI_API_KEY=${SECRET}`, args: ['codex'] });
    expect(reply.error?.message).toContain('OPENAI_API_KEY=***');
    expect(JSON.stringify(reply)).not.toContain(SECRET);
  });

  it('runs the child with the real value', async () => {
    h = await startWsHarness();
    const c = await client();
    const info = await c.ok<PtyInfo>('pty.spawn', { command: 'env', args: [`GH_SECRET_PROBE=${SECRET}`, '/bin/sh', '-c', 'printf "%s\\n" "${#GH_SECRET_PROBE}"; sleep 30'] });
    await c.waitOutput(info.id, new RegExp(`^${SECRET.length}\\r\\n`, 'm'));
  });
});
