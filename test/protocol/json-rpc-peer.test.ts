// The JSON-RPC peer both clients use, as two peers wired to each other in memory (and one peer fed
// frames by hand): calls and notifications both ways, served and refused calls, every malformed
// frame dropped without harm, and every call ending (answer, timeout, abort, close) with no timer left.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JsonRpcPeer, NO_ERROR_CODE, type JsonRpcPeerOptions } from '../../src/protocol/json-rpc-peer.js';
import { JsonRpcError, RPC_ERRORS } from '../../src/protocol/rpc-errors.js';

const TIMEOUT_MS = 1_000;

beforeEach(() => {
  // Only the clock: frames still travel as microtasks.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  // Every call in every test has ended by now, so none may have left its timer behind.
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

/** Lets frames in flight (each a microtask) arrive, and the handlers they start finish. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A peer whose sent frames are kept, parsed, and passed on to `deliver` when given. */
function peer(opts: Partial<JsonRpcPeerOptions> = {}, deliver?: (frame: string) => void): { peer: JsonRpcPeer; sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  const p = new JsonRpcPeer({
    remote: 'the other side',
    timeoutMs: TIMEOUT_MS,
    send: (frame) => {
      sent.push(JSON.parse(frame) as Record<string, unknown>);
      if (deliver !== undefined) queueMicrotask(() => deliver(frame));
    },
    ...opts,
  });
  return { peer: p, sent };
}

/** Two peers, each sending into the other. */
function pair(a: Partial<JsonRpcPeerOptions> = {}, b: Partial<JsonRpcPeerOptions> = {}) {
  let bPeer: JsonRpcPeer | null = null;
  const left = peer(a, (f) => bPeer?.receive(f));
  const right = peer(b, (f) => left.peer.receive(f));
  bPeer = right.peer;
  return { a: left.peer, b: right.peer, aSent: left.sent, bSent: right.sent };
}

/** The rejection of `p`, failing the test if it resolves. */
async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e as Error,
  );
}

describe('calls between two peers', () => {
  it('answers a call with what the handler returns, numbering calls from 1 in JSON-RPC 2.0 frames', async () => {
    const { a, aSent, bSent } = pair({}, { handlers: { add: (p) => (p as { x: number; y: number }).x + (p as { x: number; y: number }).y, later: async () => 'done' } });
    await expect(a.request('add', { x: 2, y: 3 })).resolves.toBe(5);
    await expect(a.request('later')).resolves.toBe('done');
    expect(aSent).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'add', params: { x: 2, y: 3 } },
      { jsonrpc: '2.0', id: 2, method: 'later' },
    ]);
    expect(bSent).toEqual([
      { jsonrpc: '2.0', id: 1, result: 5 },
      { jsonrpc: '2.0', id: 2, result: 'done' },
    ]);
  });

  it('answers null for a handler that returns nothing, since a response must carry a result', async () => {
    const { a, bSent } = pair({}, { handlers: { ping: () => undefined } });
    await expect(a.request('ping')).resolves.toBeNull();
    expect(bSent).toEqual([{ jsonrpc: '2.0', id: 1, result: null }]);
  });

  it('matches answers that come back out of order to their calls', async () => {
    let release: (v: string) => void = () => {};
    const slow = new Promise<string>((r) => (release = r));
    const { a } = pair({}, { handlers: { slow: () => slow, fast: () => 'fast' } });
    const first = a.request('slow');
    await expect(a.request('fast')).resolves.toBe('fast');
    release('slow');
    await expect(first).resolves.toBe('slow');
  });

  it('carries notifications both ways without an answer', async () => {
    const heardByA: unknown[] = [];
    const heardByB: unknown[] = [];
    const { a, b, aSent, bSent } = pair({ onNotification: (m, p) => heardByA.push([m, p]) }, { onNotification: (m, p) => heardByB.push([m, p]) });
    a.notify('pty.ack', { chars: 5000 });
    b.notify('event', { topic: 'x' });
    a.notify('initialized');
    await settle();
    expect(heardByB).toEqual([
      ['pty.ack', { chars: 5000 }],
      ['initialized', undefined],
    ]);
    expect(heardByA).toEqual([['event', { topic: 'x' }]]);
    expect(aSent).toEqual([
      { jsonrpc: '2.0', method: 'pty.ack', params: { chars: 5000 } },
      { jsonrpc: '2.0', method: 'initialized' },
    ]);
    expect(bSent).toEqual([{ jsonrpc: '2.0', method: 'event', params: { topic: 'x' } }]);
  });

  it('lets a server call its client back while the client waits on it (as Codex asks for approvals)', async () => {
    let server: JsonRpcPeer | null = null;
    const { a, b } = pair(
      { handlers: { 'item/requestApproval': (p) => ({ decision: (p as { cmd: string }).cmd === 'ls' ? 'accept' : 'decline' }) } },
      { handlers: { 'turn/start': async () => server!.request('item/requestApproval', { cmd: 'ls' }) } },
    );
    server = b;
    await expect(a.request('turn/start')).resolves.toEqual({ decision: 'accept' });
  });

  it('leaves the version member out both ways when told to, as Codex app-server speaks', async () => {
    const { a, aSent, bSent } = pair({ omitVersion: true }, { omitVersion: true, handlers: { 'hooks/list': () => ({ data: [] }) } });
    await expect(a.request('hooks/list', { cwds: ['/p'] })).resolves.toEqual({ data: [] });
    a.notify('initialized');
    expect(aSent).toEqual([{ id: 1, method: 'hooks/list', params: { cwds: ['/p'] } }, { method: 'initialized' }]);
    expect(bSent).toEqual([{ id: 1, result: { data: [] } }]);
  });
});

describe('refused calls', () => {
  it('rejects with a JsonRpcError carrying the code, message and data the handler threw', async () => {
    const { a, bSent } = pair(
      {},
      {
        handlers: {
          resolve: () => {
            throw new JsonRpcError(RPC_ERRORS.approval_refused.code, 'already answered', { name: 'approval_refused', reason: 'resolved' });
          },
        },
      },
    );
    const err = await rejection(a.request('resolve'));
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err).toMatchObject({ code: -32008, message: 'already answered', data: { name: 'approval_refused', reason: 'resolved' } });
    expect(bSent).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32008, message: 'already answered', data: { name: 'approval_refused', reason: 'resolved' } } }]);
  });

  it('answers an internal error, without the exception text, when a handler fails unexpectedly', async () => {
    const { a } = pair(
      {},
      {
        handlers: {
          boom: async () => {
            throw new Error('secret stack detail');
          },
        },
      },
    );
    const err = await rejection(a.request('boom'));
    expect(err).toMatchObject({ code: RPC_ERRORS.internal.code, message: 'boom failed in this client', data: { name: 'internal' } });
  });

  it('answers method_not_found for an unknown method, including names every object inherits', async () => {
    const { a } = pair({}, { handlers: { known: () => 1 } });
    for (const method of ['nope', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const err = await rejection(a.request(method));
      expect(err).toMatchObject({ code: RPC_ERRORS.method_not_found.code, data: { name: 'method_not_found' } });
      expect(err.message).toBe(`no method ${JSON.stringify(method)} here: use one of known`);
    }
  });

  it('says it serves no calls when it has no handlers', async () => {
    const { a } = pair();
    await expect(a.request('item/requestApproval')).rejects.toThrow('no method "item/requestApproval" here: this client serves no calls');
  });

  it('answers a request whose id is neither a string nor a number with invalid_request to id null', () => {
    const { peer: p, sent } = peer({ handlers: { m: () => 1 } });
    p.receive('{"jsonrpc":"2.0","id":{"x":1},"method":"m"}');
    p.receive('{"jsonrpc":"2.0","id":null,"method":"m"}');
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.invalid_request.code, message: 'id must be a string or a number', data: { name: 'invalid_request' } } },
      { jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.invalid_request.code, message: 'id must be a string or a number', data: { name: 'invalid_request' } } },
    ]);
  });

  it('answers a request whose method is not a string with invalid_request to its id, and never an answer to one of its own calls', async () => {
    const { peer: p, sent } = peer();
    const call = p.request('m');
    p.receive('{"jsonrpc":"2.0","id":1,"method":7}');
    expect(sent.slice(1)).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: RPC_ERRORS.invalid_request.code, message: 'method must be a string', data: { name: 'invalid_request' } } }]);
    p.receive('{"jsonrpc":"2.0","id":1,"result":"answer"}');
    await expect(call).resolves.toBe('answer');
  });

  it('answers a string id with that same id', async () => {
    const { peer: p, sent } = peer({ handlers: { m: () => 'ok' } });
    p.receive('{"jsonrpc":"2.0","id":"abc","method":"m"}');
    await settle();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 'abc', result: 'ok' }]);
  });
});

describe('malformed and stray frames', () => {
  it('drops frames that are not one JSON object without replying, and still answers the call in flight', async () => {
    const notes: string[] = [];
    const { peer: p, sent } = peer({ onNotification: (m) => notes.push(m) });
    const call = p.request('pty.list');
    for (const junk of ['', 'not json', '{"id":1,', '[{"jsonrpc":"2.0","id":1,"result":"batched"}]', '42', '"text"', 'null', 'true', '{}', '{"method":7}']) p.receive(junk);
    expect(sent).toHaveLength(1);
    expect(notes).toEqual([]);
    p.receive('{"jsonrpc":"2.0","id":1,"result":["the real answer"]}');
    await expect(call).resolves.toEqual(['the real answer']);
    expect(sent).toHaveLength(1);
  });

  it('ignores answers to no call: unknown ids, string ids, null ids, and a second answer to the same call', async () => {
    const { peer: p, sent } = peer();
    const call = p.request('m');
    p.receive('{"jsonrpc":"2.0","id":99,"result":"stray"}');
    p.receive('{"jsonrpc":"2.0","id":"1","result":"same digits, but a string"}');
    p.receive('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the frame is not JSON"}}');
    p.receive('{"jsonrpc":"2.0","id":1.5,"result":"fraction"}');
    p.receive('{"jsonrpc":"2.0","id":1,"result":"first"}');
    p.receive('{"jsonrpc":"2.0","id":1,"result":"second"}');
    await expect(call).resolves.toBe('first');
    expect(sent).toHaveLength(1);
  });

  it('reads an error answer of any shape as a JsonRpcError with a usable message', async () => {
    const { peer: p } = peer();
    const answers: [unknown, object][] = [
      [
        { code: -32004, message: 'no such session', data: { name: 'no_such_session' } },
        { code: -32004, message: 'no such session', data: { name: 'no_such_session' } },
      ],
      ['plain text, JSON-RPC 1.0 style', { code: NO_ERROR_CODE, message: 'plain text, JSON-RPC 1.0 style', data: undefined }],
      [
        { code: 'x', message: 5 },
        { code: NO_ERROR_CODE, message: 'the other side refused m without a message: {"code":"x","message":5}' },
      ],
      [
        { code: 1.5, message: '' },
        { code: NO_ERROR_CODE, message: 'the other side refused m without a message: {"code":1.5,"message":""}' },
      ],
      [42, { code: NO_ERROR_CODE, message: 'the other side refused m without a message: 42' }],
      [[1, 2], { code: NO_ERROR_CODE, message: 'the other side refused m without a message: [1,2]' }],
      [
        { message: 'no code', data: 'free-form' },
        { code: NO_ERROR_CODE, message: 'no code', data: 'free-form' },
      ],
    ];
    for (const [i, [error, expected]] of answers.entries()) {
      const call = p.request('m');
      p.receive(JSON.stringify({ jsonrpc: '2.0', id: i + 1, error }));
      const err = await rejection(call);
      expect(err).toBeInstanceOf(JsonRpcError);
      expect(err).toMatchObject(expected);
    }
  });

  it('quotes at most 200 characters of a huge unreadable error', async () => {
    const { peer: p } = peer();
    const call = p.request('m');
    p.receive(JSON.stringify({ id: 1, error: { blob: 'x'.repeat(10_000) } }));
    const err = await rejection(call);
    expect(err.message.length).toBeLessThan(300);
    expect(err.message.endsWith('…')).toBe(true);
  });

  it('takes "error": null beside a result as success, and an answer with neither as a failure', async () => {
    const { peer: p } = peer();
    const one = p.request('m');
    const two = p.request('m');
    p.receive('{"id":1,"result":"fine","error":null}');
    p.receive('{"id":2,"error":null}');
    await expect(one).resolves.toBe('fine');
    const err = await rejection(two);
    expect(err).not.toBeInstanceOf(JsonRpcError);
    expect(err.message).toBe('the other side answered m with neither a result nor an error');
  });

  it('accepts a result of null, false or 0 as an answer', async () => {
    const { peer: p } = peer();
    const calls = [p.request('a'), p.request('b'), p.request('c')];
    p.receive('{"id":1,"result":null}');
    p.receive('{"id":2,"result":false}');
    p.receive('{"id":3,"result":0}');
    await expect(Promise.all(calls)).resolves.toEqual([null, false, 0]);
  });
});

describe('every call ends', () => {
  it('fails an unanswered call after the deadline, naming the other side and the method, and ignores the late answer', async () => {
    const { peer: p } = peer();
    const call = p.request('pty.list');
    vi.advanceTimersByTime(TIMEOUT_MS);
    await expect(call).rejects.toThrow('the other side did not answer pty.list within 1 s');
    p.receive('{"jsonrpc":"2.0","id":1,"result":"late"}');
  });

  it('takes a per-call deadline over the peer default, and waits without one for Infinity', async () => {
    const { peer: p } = peer();
    const quick = p.request('quick', undefined, { timeoutMs: 50 });
    const patient = p.request('patient', undefined, { timeoutMs: Number.POSITIVE_INFINITY });
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(50);
    await expect(quick).rejects.toThrow('did not answer quick within 0.05 s');
    vi.advanceTimersByTime(10 * TIMEOUT_MS);
    p.receive('{"id":2,"result":"still here"}');
    await expect(patient).resolves.toBe('still here');
  });

  it('clears the deadline of an answered call', async () => {
    const { peer: p } = peer();
    const call = p.request('m');
    expect(vi.getTimerCount()).toBe(1);
    p.receive('{"id":1,"result":1}');
    await call;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails a call when its signal aborts, with the signal’s reason, and ignores the answer after', async () => {
    const { peer: p } = peer();
    const ctl = new AbortController();
    const call = p.request('m', undefined, { signal: ctl.signal });
    const why = new Error('the user closed the panel');
    ctl.abort(why);
    expect(await rejection(call)).toBe(why);
    p.receive('{"id":1,"result":"too late"}');
  });

  it('wraps an abort reason that is not an Error', async () => {
    const { peer: p } = peer();
    const ctl = new AbortController();
    const call = p.request('m', undefined, { signal: ctl.signal });
    ctl.abort('not an error');
    const err = await rejection(call);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe('m was cancelled');
    expect(err.cause).toBe('not an error');
  });

  it('sends nothing for a call whose signal has already aborted', async () => {
    const { peer: p, sent } = peer();
    const err = await rejection(p.request('m', undefined, { signal: AbortSignal.abort() }));
    expect(err.name).toBe('AbortError');
    expect(sent).toEqual([]);
  });

  it('stops listening to the signal once the call is answered', async () => {
    const { peer: p } = peer();
    const ctl = new AbortController();
    const call = p.request('m', undefined, { signal: ctl.signal });
    p.receive('{"id":1,"result":"answered"}');
    ctl.abort(new Error('after the fact'));
    await expect(call).resolves.toBe('answered');
  });

  it('fails every call in flight on close with the reason, and every later call too, keeping the first reason', async () => {
    const { peer: p, sent } = peer({ handlers: {} });
    const calls = [p.request('a'), p.request('b', { x: 1 }, { signal: new AbortController().signal })];
    p.close('the connection to the gateway closed');
    p.close('a second reason');
    for (const c of calls) await expect(c).rejects.toThrow('the connection to the gateway closed');
    await expect(p.request('c')).rejects.toThrow('the connection to the gateway closed');
    p.notify('dropped');
    p.receive('{"id":1,"result":"after close"}');
    p.receive('{"id":7,"method":"m"}');
    expect(sent.map((f) => f.method)).toEqual(['a', 'b']);
  });

  it('sends no answer for a call whose handler finishes after the peer closed', async () => {
    let release: () => void = () => {};
    const { peer: p, sent } = peer({ handlers: { slow: () => new Promise<string>((r) => (release = () => r('done'))) } });
    p.receive('{"id":1,"method":"slow"}');
    p.close('gone');
    release();
    await settle();
    expect(sent).toEqual([]);
  });

  it('closes with a reason when the transport cannot send, failing that call and any in flight', async () => {
    let broken = false;
    const p = new JsonRpcPeer({
      remote: 'codex app-server',
      timeoutMs: TIMEOUT_MS,
      send: () => {
        if (broken) throw new Error('write EPIPE');
      },
    });
    const first = p.request('a');
    broken = true;
    const second = p.request('b');
    await expect(first).rejects.toThrow('cannot send to codex app-server: write EPIPE');
    await expect(second).rejects.toThrow('cannot send to codex app-server: write EPIPE');
  });

  it('rejects params that cannot be serialised without registering the call', async () => {
    const { peer: p, sent } = peer();
    await expect(p.request('m', { n: 1n })).rejects.toThrow(TypeError);
    expect(sent).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
