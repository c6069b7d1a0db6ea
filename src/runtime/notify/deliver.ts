// Sends one notification on one channel: a POST with a timeout and retries with backoff,
// or `notify-send`. Never throws: the outcome is a value, and nothing here decides a call.
import { spawn } from 'node:child_process';
import { ntfyRequest, slackRequest, webhookRequest, type OutboundRequest } from '../../core/notify/formats.js';
import type { NotifyMessage } from '../../core/notify/message.js';
import type { Channel } from './channels.js';

/** How long one attempt may take: a receiver that has not answered in this long is down. */
const ATTEMPT_TIMEOUT_MS = 5_000;
/**
 * Waits before each retry: a blip is retried at once, an outage is given a few seconds,
 * and after about 7 s the message is given up (it is late by then, and the dashboard still shows it).
 */
const RETRY_DELAYS_MS: readonly number[] = [250, 1_000, 2_000, 4_000];

/** What happened to one delivery. */
export type DeliveryOutcome = { ok: true; attempts: number } | { ok: false; attempts: number; reason: string };

/** How to deliver; injected so tests can shorten the waits. */
export interface DeliverOptions {
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
  /** Unix seconds for webhook signatures. */
  nowS?: () => number;
  /** Aborted: no more attempts (the one in flight is cut too). */
  signal?: AbortSignal;
}

function requestFor(channel: Exclude<Channel, { kind: 'desktop' }>, message: NotifyMessage, nowS: number): OutboundRequest {
  switch (channel.kind) {
    case 'webhook':
      return webhookRequest(channel.url, message, channel.secret, nowS);
    case 'ntfy':
      return ntfyRequest(channel.url, message, channel.token);
    case 'slack':
      return slackRequest(channel.url, message);
  }
}

/** A status worth retrying: the receiver is overloaded or broken for now, not refusing the message. */
function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** One POST; a value either way. */
async function post(req: OutboundRequest, timeoutMs: number, stop?: AbortSignal): Promise<{ ok: boolean; retry: boolean; reason: string }> {
  try {
    const signal = stop === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]);
    const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body, redirect: 'error', signal });
    // The body is not read: drain it so the connection can be reused or closed.
    await res.body?.cancel();
    if (res.ok) return { ok: true, retry: false, reason: '' };
    return { ok: false, retry: retryable(res.status), reason: `HTTP ${res.status}` };
  } catch (err) {
    // Only a code or a name: fetch's messages can quote the URL or a header value, secrets included.
    const e = err as Error & { cause?: { code?: unknown } };
    if (e.name === 'TimeoutError') return { ok: false, retry: true, reason: `no answer within ${timeoutMs} ms` };
    const code = typeof e.cause?.code === 'string' ? e.cause.code : null;
    // A request that cannot even be built (a bad header value) fails the same way every time.
    return { ok: false, retry: code !== null, reason: code ?? `${e.name} (the request could not be sent)` };
  }
}

/** Waits `ms`, or less once `stop` aborts. */
function sleep(ms: number, stop?: AbortSignal): Promise<void> {
  return new Promise((r) => {
    const timer = setTimeout(done, ms);
    stop?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      stop?.removeEventListener('abort', done);
      r();
    }
  });
}

function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Runs `notify-send TITLE BODY` (no shell); a value either way. */
function desktop(program: string, message: NotifyMessage, timeoutMs: number): Promise<DeliveryOutcome> {
  return new Promise((resolve) => {
    // notify-send reads markup in the body (`<a href>`, `<img>`): the agent's text is escaped, shown as typed.
    const child = spawn(program, ['--app-name=Gatehouse', '--urgency=critical', '--', message.title, escapeMarkup(message.body)], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, attempts: 1, reason: err.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? { ok: true, attempts: 1 } : { ok: false, attempts: 1, reason: signal === null ? `notify-send exited ${code}` : `notify-send killed by ${signal}` });
    });
  });
}

/**
 * Delivers `message` on `channel`, retrying network errors, timeouts, 408, 429 and 5xx with
 * backoff; other 4xx answers are final (the receiver refused this message).
 * @example await deliver({ kind: 'ntfy', name: 'ntfy', url: 'http://127.0.0.1:8080/t', token: null }, message) // { ok: true, attempts: 1 }
 */
export async function deliver(channel: Channel, message: NotifyMessage, opts: DeliverOptions = {}): Promise<DeliveryOutcome> {
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  if (channel.kind === 'desktop') return desktop(channel.program, message, timeoutMs);
  const delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
  const nowS = opts.nowS ?? (() => Math.floor(Date.now() / 1000));
  let last = '';
  for (let attempt = 1; ; attempt++) {
    const r = await post(requestFor(channel, message, nowS()), timeoutMs, opts.signal);
    if (r.ok) return { ok: true, attempts: attempt };
    last = r.reason;
    const wait = delays[attempt - 1];
    if (!r.retry || wait === undefined || opts.signal?.aborted === true)
      return { ok: false, attempts: attempt, reason: opts.signal?.aborted === true ? `${last}; stopped before it could be retried` : last };
    await sleep(wait, opts.signal);
  }
}
