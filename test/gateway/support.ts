// Shared setup for gateway tests: a real ApprovalQueue in a temp state dir, a real
// gateway on 127.0.0.1 port 0, and raw node:http requests where fetch cannot set a header.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { tempDir } from '../support/cli.js';
import type { PendingApproval } from '../../src/runtime/approvals/index.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import type { Gateway } from '../../src/gateway/server.js';
import { startGateway } from '../../src/gateway/server.js';
import type { GatewayOptions } from '../../src/gateway/options.js';

/** A secret long enough for env tokens. */
export const SECRET = 'resolver-secret-0123456789abcdef';
/** A second, different secret. */
export const OTHER_SECRET = 'reader-secret-fedcba9876543210';
/** The access token of every test gateway (what `serve` prints in the dashboard URL). */
export const ACCESS_TOKEN = 'access-token-0123456789abcdef0123';
/** Who holds it: the user who started the test gateway. */
const OPERATOR_NAME = 'ana';

/** An `Authorization` header carrying `secret` as a bearer token. */
export function bearer(secret: string): Record<string, string> {
  return { authorization: `Bearer ${secret}` };
}

/** The headers of the operator: the access token as a bearer. */
export const OPERATOR: Readonly<Record<string, string>> = bearer(ACCESS_TOKEN);

/** Hex SHA-256 of `secret`, as a config file would hold it. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A started gateway, its queue and state dir. */
export interface Harness {
  gw: Gateway;
  queue: ApprovalQueue;
  state: string;
}

/** Starts a gateway on 127.0.0.1:0 over a fresh state dir. */
export async function startHarness(opts: Partial<GatewayOptions> = {}): Promise<Harness> {
  const state = opts.projectState ?? tempDir('gh-gateway-');
  const gw = await startGateway({ projectState: state, host: '127.0.0.1', port: 0, accessToken: ACCESS_TOKEN, operator: OPERATOR_NAME, tokens: [], log: () => {}, ...opts });
  return { gw, queue: new ApprovalQueue(state), state };
}

/** Files one pending approval through the queue API. */
export function enqueue(queue: ApprovalQueue, session = 'sess-1', summary = 'rm -rf build'): PendingApproval {
  return queue.enqueue({ session_id: session, agent: 'claude', tool: 'Bash', summary, ttlSeconds: 600 });
}

/** GETs `path` as the operator, unless `headers` are given. */
export function getVia(gw: Gateway, path: string, headers: Readonly<Record<string, string>> = OPERATOR): Promise<Response> {
  return fetch(`${gw.url}${path}`, { headers });
}

/** POSTs a JSON resolve body (an object, or raw text) for `id`, as the operator unless `headers` are given. */
export function resolveVia(gw: Gateway, id: string, body: unknown, headers: Readonly<Record<string, string>> = OPERATOR): Promise<Response> {
  return fetch(`${gw.url}/approvals/${id}/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The `{error: {code}}` of a JSON error response. */
export async function errorCode(res: Response): Promise<string> {
  const body = (await res.json()) as { error?: { code?: string } };
  return body.error?.code ?? '(no error code)';
}

/** A raw response: status, headers and body text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over node:http, which (unlike fetch) sends the `Host` header it is given. */
export function rawRequest(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer[] }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Array.isArray(opts.body)) for (const b of opts.body) req.write(b);
    else if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
