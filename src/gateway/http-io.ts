// JSON in and out over node:http: bounded body reads that never buffer more than the
// cap, and uniform JSON replies that no cache keeps.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A reply a route hands back; the server writes it as JSON. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The wire shape of every error: `{error: {code, message}}`. */
interface ErrorBody {
  error: { code: string; message: string };
}

/** Builds an error reply; `message` says what to do next. */
export function errorReply(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  const body: ErrorBody = { error: { code, message } };
  return headers === undefined ? { status, body } : { status, body, headers };
}

/** Writes `reply` as JSON; approvals change by the second, so nothing may be cached. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

/** A parsed JSON body, or the error reply to send instead. */
export type BodyResult = { ok: true; value: unknown } | { ok: false; reply: Reply };

/** Tells Node to drop the connection after the reply instead of draining an oversized body. */
const CLOSE = { connection: 'close' };

function tooLarge(limit: number): BodyResult {
  return { ok: false, reply: errorReply(413, 'body_too_large', `the request body exceeds ${limit} bytes: send a shorter reason`, CLOSE) };
}

/** True if the request says its body is JSON (any charset parameter is fine). */
function isJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && type.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Reads and parses a JSON body of at most `limit` bytes. Requiring `application/json`
 * also means a cross-site browser page cannot send it without a CORS preflight we never grant.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  if (!isJson(req)) {
    return Promise.resolve({ ok: false, reply: errorReply(415, 'unsupported_media_type', 'send the body as JSON with `Content-Type: application/json`', CLOSE) });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(tooLarge(limit));
  return readBody(req, limit).then((body) => {
    if (body === 'too_large') return tooLarge(limit);
    if (body === 'unreadable') return { ok: false, reply: errorReply(400, 'bad_request', 'the request body could not be read completely: send it again', CLOSE) };
    try {
      return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
    } catch {
      return { ok: false, reply: errorReply(400, 'bad_json', 'the request body is not valid JSON: send an object like {"decision":"allow","nonce":"…"}') };
    }
  });
}

/**
 * Reads a request body of at most `limit` bytes, never buffering more: the bytes, or why not
 * (an oversized body stops being read at the limit; the caller answers and closes).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'unreadable'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | 'too_large' | 'unreadable'): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish('too_large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(Buffer.concat(chunks));
    const onError = (): void => finish('unreadable');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
