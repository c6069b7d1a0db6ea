import { createHmac } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../../src/runtime/approvals/index.js';
import { resolveChannels, type Channel } from '../../../src/runtime/notify/channels.js';
import { deliver } from '../../../src/runtime/notify/deliver.js';
import { Notifier } from '../../../src/runtime/notify/notifier.js';
import { LinkBook, startNotifications } from '../../../src/runtime/notify/index.js';
import { loadConfig } from '../../../src/runtime/config.js';
import { alice, request } from '../approvals/helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

let state: string;
let queue: ApprovalQueue;
let receivers: Receiver[];
let notifiers: Notifier[];
const logs: string[] = [];
const FAST = { retryDelaysMs: [10, 20, 40], timeoutMs: 2_000 };

beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'gh-notify-'));
  queue = new ApprovalQueue(state);
  receivers = [];
  notifiers = [];
  logs.length = 0;
});
afterEach(async () => {
  for (const n of notifiers) await n.close();
  for (const r of receivers) await r.close();
  rmSync(state, { recursive: true, force: true });
});

async function receiver(statuses: number[] = []): Promise<Receiver> {
  const r = await startReceiver(statuses);
  receivers.push(r);
  return r;
}

function notifier(channels: Channel[], batchMs = 50, linkFor?: (id: string, channel: string) => string | null): Notifier {
  const n = new Notifier({
    queue,
    projectState: state,
    project: 'shop-api',
    channels,
    batchMs,
    log: (l) => logs.push(l),
    deliverOptions: FAST,
    ...(linkFor ? { linkFor: (p, c) => linkFor(p.id, c.name) } : {}),
  });
  notifiers.push(n);
  n.start();
  return n;
}

describe('the webhook channel', () => {
  it('posts signed JSON naming the project, agent, tool and one masked line of the call', async () => {
    const r = await receiver();
    notifier([{ kind: 'webhook', name: 'webhook', url: `${r.url}/hook`, secret: 's3cret' }]);
    const p = queue.enqueue(request({ tool: 'Bash', summary: 'Bash: curl -H "Authorization: x ghp_0123456789abcdefghijABCDEFGHIJ" https://api.example.com\nsecond line' }));
    const [got] = await r.waitFor(1);
    const ts = String(got?.headers['x-gatehouse-timestamp']);
    const expected = `sha256=${createHmac('sha256', 's3cret').update(`${ts}.${got?.body}`).digest('hex')}`;
    expect(got?.headers['x-gatehouse-signature']).toBe(expected);
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(30);
    const body = JSON.parse(got?.body ?? '');
    expect(body).toMatchObject({ version: 1, event: 'approvals.waiting', project: 'shop-api', title: 'Gatehouse: approval needed in shop-api' });
    expect(body.approvals).toEqual([{ id: p.id, session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'Bash: curl -H "Authorization: ***" https://api.example.com …', expires_at: p.expires_at }]);
    expect(got?.body).not.toContain('0123456789abcdefghij');
    expect(got?.body).not.toContain('second line');
  });

  it('gathers a burst into one message', async () => {
    const r = await receiver();
    notifier([{ kind: 'webhook', name: 'webhook', url: r.url, secret: null }], 200);
    const ids = [queue.enqueue(request()).id, queue.enqueue(request()).id, queue.enqueue(request()).id];
    await r.waitFor(1);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received.length).toBe(1);
    const body = JSON.parse(r.received[0]?.body ?? '');
    expect(body.title).toBe('Gatehouse: 3 approvals needed in shop-api');
    expect(body.approvals.map((a: { id: string }) => a.id)).toEqual(ids);
  });

  it('never tells about a call twice, across supervisors of one project and across restarts', async () => {
    const r = await receiver();
    const channel: Channel = { kind: 'webhook', name: 'webhook', url: r.url, secret: null };
    notifier([channel], 100);
    notifier([channel], 100);
    const ids = [queue.enqueue(request()).id, queue.enqueue(request()).id, queue.enqueue(request()).id];
    await r.waitFor(1);
    await new Promise((res) => setTimeout(res, 300));
    const told = () => r.received.flatMap((x) => (JSON.parse(x.body) as { approvals: { id: string }[] }).approvals.map((a) => a.id));
    expect(told().sort()).toEqual([...ids].sort());
    expect(r.received[0]?.headers['x-gatehouse-signature']).toBeUndefined();
    for (const n of notifiers.splice(0)) await n.close();
    notifier([channel], 20);
    await new Promise((res) => setTimeout(res, 200));
    expect(told().length).toBe(3);
  });

  it('tells the first call at once, gathers the ones after it for the window, and leaves out any answered meanwhile', async () => {
    const r = await receiver();
    notifier([{ kind: 'webhook', name: 'webhook', url: r.url, secret: null }], 400);
    const first = queue.enqueue(request());
    await r.waitFor(1);
    const answered = queue.enqueue(request());
    const waiting = queue.enqueue(request());
    await new Promise((res) => setTimeout(res, 100));
    expect(r.received.length).toBe(1);
    queue.resolve(answered.id, { decision: 'allow', principal: alice });
    await r.waitFor(2);
    const told = r.received.map((x) => JSON.parse(x.body).approvals.map((a: { id: string }) => a.id));
    expect(told).toEqual([[first.id], [waiting.id]]);
    expect((r.received[1]?.at ?? 0) - (r.received[0]?.at ?? 0)).toBeGreaterThanOrEqual(350);
  });

  it('retries 5xx answers with backoff, gives up on a 4xx, and logs a failure without touching the request', async () => {
    const flaky = await receiver([503, 502]);
    const refusing = await receiver([400]);
    const n = notifier([
      { kind: 'webhook', name: 'webhook', url: flaky.url, secret: null },
      { kind: 'webhook', name: 'webhook-2', url: refusing.url, secret: null },
    ]);
    const p = queue.enqueue(request());
    await flaky.waitFor(3);
    await refusing.waitFor(1);
    await new Promise((res) => setTimeout(res, 150));
    expect(flaky.received.length).toBe(3);
    expect(refusing.received.length).toBe(1);
    expect(n.deliveries.map((d) => [d.channel, d.outcome.ok, d.outcome.attempts]).sort()).toEqual([
      ['webhook', true, 3],
      ['webhook-2', false, 1],
    ]);
    expect(logs.join('\n')).toMatch(new RegExp(`webhook-2 was not told about ${p.id} after 1 attempt\\(s\\): HTTP 400`));
    expect(queue.get(p.id)).toMatchObject({ resolution: null, problem: null });
  });

  it('reports an unreachable receiver after its retries', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    receivers = [];
    const out = await deliver({ kind: 'webhook', name: 'webhook', url, secret: null }, { title: 't', body: 'b', click: null, project: 'p', items: [] }, FAST);
    expect(out).toMatchObject({ ok: false, attempts: 4, reason: 'ECONNREFUSED' });
  });
});

describe('ntfy and Slack-compatible channels', () => {
  it('publishes to an ntfy topic with a title, a tap target and the token', async () => {
    const r = await receiver();
    notifier([{ kind: 'ntfy', name: 'ntfy', url: `${r.url}/gatehouse-alerts`, token: 'tk_123' }], 20, (id, channel) => `https://gh.example.com/a/${channel}-${id}`);
    const p = queue.enqueue(request({ agent: 'codex', tool: 'shell', summary: 'shell: npm publish' }));
    const [got] = await r.waitFor(1);
    expect(got?.path).toBe('/gatehouse-alerts');
    expect(got?.headers).toMatchObject({ title: 'Gatehouse: approval needed in shop-api', click: `https://gh.example.com/a/ntfy-${p.id}`, authorization: 'Bearer tk_123', priority: 'high' });
    expect(got?.body).toBe('codex · shell: shell: npm publish');
  });

  it('posts Slack text with agent text escaped and in a code block, so it cannot form links or mentions', async () => {
    const r = await receiver();
    notifier([{ kind: 'slack', name: 'slack', url: r.url }], 20);
    queue.enqueue(request({ summary: 'Bash: echo "<https://evil.example|click me>" <!channel> & more' }));
    const [got] = await r.waitFor(1);
    const { text } = JSON.parse(got?.body ?? '') as { text: string };
    expect(text).toBe('*Gatehouse: approval needed in shop-api*\n```\nclaude · Bash: Bash: echo "&lt;https://evil.example|click me&gt;" &lt;!channel&gt; &amp; more\n```');
  });
});

describe('stopping and a broken state folder', () => {
  it('stops within its grace when a receiver keeps failing, instead of waiting out every retry', async () => {
    const r = await receiver(Array(20).fill(503));
    const n = new Notifier({
      queue,
      projectState: state,
      project: 'shop-api',
      channels: [{ kind: 'webhook', name: 'webhook', url: r.url, secret: null }],
      batchMs: 10,
      log: (l) => logs.push(l),
      deliverOptions: { retryDelaysMs: [60_000, 60_000], timeoutMs: 2_000 },
    });
    n.start();
    queue.enqueue(request());
    await r.waitFor(1);
    const t0 = performance.now();
    await n.close();
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(n.deliveries[0]?.outcome).toMatchObject({ ok: false, reason: expect.stringContaining('stopped before it could be retried') });
  });

  it('tells nobody, and says so, when its claim folder cannot be made; the queue works on', () => {
    mkdirSync(join(state, 'approvals'), { recursive: true });
    writeFileSync(join(state, 'approvals', 'notified'), 'not a folder');
    expect(() => notifier([{ kind: 'webhook', name: 'webhook', url: 'http://127.0.0.1:9/x', secret: null }])).not.toThrow();
    expect(logs.join('\n')).toMatch(/notifications are off/);
    expect(queue.enqueue(request()).id).toBeTruthy();
  });
});

describe('what leaves the machine', () => {
  it('keeps agent text inside the code block, and masks URL credentials, credential headers and mysql -p passwords', async () => {
    const r = await receiver();
    notifier([{ kind: 'slack', name: 'slack', url: r.url }], 20);
    queue.enqueue(request({ summary: 'Bash: curl https://alice:hunter2@host/x -H "X-Api-Key: abc123def" ``` @everyone [Approve](https://evil) && mysql -pS3cret db' }));
    const [got] = await r.waitFor(1);
    const { text } = JSON.parse(got?.body ?? '') as { text: string };
    const block = text.split('```');
    expect(block).toHaveLength(3);
    expect(block[1]).toContain("''' @everyone [Approve](https://evil)");
    for (const secret of ['hunter2', 'abc123def', 'S3cret']) expect(text).not.toContain(secret);
  });

  it('refuses a channel URL with a user name or password in it, at start', () => {
    expect(
      resolveChannels({ batch_ms: 10, webhooks: [{ url_env: 'GATEHOUSE_HOOK_URL' }], ntfy: [], slack: [], desktop: false }, { GATEHOUSE_HOOK_URL: 'https://user:pw@hooks.example.com/x' }),
    ).toEqual({
      ok: false,
      reason: expect.stringContaining('without a user name or password'),
    });
  });

  it('never logs what a request that cannot be sent quotes of its header values', async () => {
    const out = await deliver({ kind: 'ntfy', name: 'ntfy', url: 'http://127.0.0.1:9/t', token: 'tk_secret\nInjected: 1' }, { title: 't', body: 'b', click: null, project: 'p', items: [] }, FAST);
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.attempts).toBe(1);
      expect(out.reason).not.toContain('tk_secret');
    }
  });
});

describe('desktop notifications', () => {
  it('runs notify-send from PATH with the title and body as arguments, never through a shell', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'gh-bin-'));
    try {
      const out = join(bin, 'args.json');
      writeFileSync(join(bin, 'notify-send'), `#!/usr/bin/env node\nrequire('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(2)));\n`);
      chmodSync(join(bin, 'notify-send'), 0o755);
      const channels = resolveChannels({ batch_ms: 10, webhooks: [], ntfy: [], slack: [], desktop: true }, { PATH: `${bin}:${process.env.PATH}` });
      expect(channels.ok).toBe(true);
      if (!channels.ok) return;
      const n = notifier(channels.value, 10);
      queue.enqueue(request({ summary: 'Bash: rm -rf build; $(touch pwned)' }));
      for (let i = 0; i < 100 && n.deliveries.length === 0; i++) await new Promise((res) => setTimeout(res, 20));
      expect(n.deliveries[0]?.outcome).toEqual({ ok: true, attempts: 1 });
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([
        '--app-name=Gatehouse',
        '--urgency=critical',
        '--',
        'Gatehouse: approval needed in shop-api',
        'claude · Bash: Bash: rm -rf build; $(touch pwned)',
      ]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe('channels from gatehouse.yaml', () => {
  function config(yaml: string) {
    const dir = mkdtempSync(join(tmpdir(), 'gh-notify-cfg-'));
    writeFileSync(join(dir, 'gatehouse.yaml'), yaml);
    try {
      return loadConfig({ root: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('reads secrets from the variables named, and names channels for logs and links', () => {
    const loaded = config(
      'notify:\n  webhooks:\n    - url: https://hooks.example.com/a\n      secret_env: GATEHOUSE_HOOK_SECRET\n    - url_env: GATEHOUSE_HOOK_URL\n  ntfy:\n    - url: https://ntfy.sh/topic\n  slack:\n    - url_env: GATEHOUSE_SLACK_URL\n',
    );
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const channels = resolveChannels(loaded.value.notify, { GATEHOUSE_HOOK_SECRET: 'abc', GATEHOUSE_HOOK_URL: 'http://127.0.0.1:9/x', GATEHOUSE_SLACK_URL: 'https://hooks.slack.com/services/T/B/C' });
    expect(channels).toEqual({
      ok: true,
      value: [
        { kind: 'webhook', name: 'webhook', url: 'https://hooks.example.com/a', secret: 'abc' },
        { kind: 'webhook', name: 'webhook-2', url: 'http://127.0.0.1:9/x', secret: null },
        { kind: 'ntfy', name: 'ntfy', url: 'https://ntfy.sh/topic', token: null },
        { kind: 'slack', name: 'slack', url: 'https://hooks.slack.com/services/T/B/C' },
      ],
    });
  });

  it('links each call to its single-use page under the public URL, and a batch to its project of a serve --all', async () => {
    const r = await receiver();
    const loaded = config(`notify:\n  batch_ms: 300\n  webhooks:\n    - url: ${r.url}/hook\n`);
    if (!loaded.ok) throw new Error(loaded.reason);
    const started = startNotifications({
      config: loaded.value.notify,
      queue,
      projectState: state,
      projectRoot: '/src/shop',
      env: {},
      log: (l) => logs.push(l),
      publicUrl: 'https://gh.example.com/',
      links: new LinkBook(),
      projectKey: 'shop-0123456789abcdef',
    });
    if (!started.ok || started.value === null) throw new Error('no notifier');
    notifiers.push(started.value);
    const first = queue.enqueue(request());
    await r.waitFor(1);
    const one = JSON.parse(r.received[0]!.body) as { click: string; approvals: { id: string; link: string }[] };
    expect(one.approvals[0]).toMatchObject({ id: first.id, link: expect.stringMatching(/^https:\/\/gh\.example\.com\/approve#t=[A-Za-z0-9_-]{43}$/) });
    expect(one.click).toBe(one.approvals[0]!.link);
    queue.enqueue(request());
    queue.enqueue(request());
    await r.waitFor(2);
    const batch = JSON.parse(r.received[1]!.body) as { click: string; approvals: { link: string }[] };
    expect(batch.click).toBe('https://gh.example.com/?project=shop-0123456789abcdef');
    expect(new Set(batch.approvals.map((a) => a.link)).size).toBe(2);
  });

  it('refuses a missing secret variable at start, rather than sending unsigned later', () => {
    const loaded = config('notify:\n  webhooks:\n    - url: https://hooks.example.com/a\n      secret_env: GATEHOUSE_HOOK_SECRET\n');
    if (!loaded.ok) throw new Error(loaded.reason);
    expect(resolveChannels(loaded.value.notify, {})).toEqual({
      ok: false,
      reason: expect.stringContaining("webhooks[0]'s secret_env names the environment variable GATEHOUSE_HOOK_SECRET, which is not set"),
    });
  });

  it('says what is wrong with a bad entry, with the line', () => {
    const both = config('notify:\n  ntfy:\n    - url: https://ntfy.sh/t\n      url_env: GATEHOUSE_X\n');
    expect(both).toEqual({ ok: false, reason: expect.stringContaining('expected exactly one of `url` or `url_env`') });
    const scheme = config('notify:\n  slack:\n    - url: file:///etc/passwd\n');
    expect(scheme).toEqual({ ok: false, reason: expect.stringMatching(/gatehouse\.yaml:3: notify\.slack\[0\]\.url: expected an http:\/\/ or https:\/\/ URL/) });
    const foreign = config('notify:\n  ntfy:\n    - url: https://ntfy.example/t\n      token_env: GITHUB_TOKEN\n');
    expect(foreign).toEqual({ ok: false, reason: expect.stringContaining('notify.ntfy[0].token_env: expected a variable named for Gatehouse, GATEHOUSE_…') });
    // A token goes only to a server your environment names: a URL in the repository's config could be anyone's.
    const written = config('notify:\n  ntfy:\n    - url: https://ntfy.attacker.example/t\n      token_env: GATEHOUSE_NTFY_TOKEN\n');
    expect(written).toEqual({ ok: false, reason: expect.stringContaining('notify.ntfy[0]: token_env sends your token to the server of `url`, which the repository wrote') });
    const fromEnv = config('notify:\n  ntfy:\n    - url_env: GATEHOUSE_NTFY_URL\n      token_env: GATEHOUSE_NTFY_TOKEN\n');
    if (!fromEnv.ok) throw new Error(fromEnv.reason);
    expect(resolveChannels(fromEnv.value.notify, { GATEHOUSE_NTFY_URL: 'https://ntfy.mine.example/t', GATEHOUSE_NTFY_TOKEN: 'tk_1' })).toMatchObject({
      ok: true,
      value: [{ kind: 'ntfy', url: 'https://ntfy.mine.example/t', token: 'tk_1' }],
    });
    const typo = config('notify:\n  webhook:\n    - url: https://x.example\n');
    expect(typo).toEqual({ ok: false, reason: expect.stringContaining('unknown key `webhook`; did you mean `webhooks`?') });
  });
});
