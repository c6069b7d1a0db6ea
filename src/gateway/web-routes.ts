// The dashboard's static files, served from the built `dist/web` under a strict CSP, and
// the sign-ins that trade the access token (`?token=` link, or pasted) for an HttpOnly cookie.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { agentPrograms } from '../adapters/agent-programs.js';
import { digestMatches, secretDigest } from '../runtime/secret-compare.js';
import type { Reply } from './http-io.js';
import { errorReply, readJsonBody } from './http-io.js';
import type { RouteContext, Router } from './router.js';

/** Where the dashboard's built files are and which token signs a browser in. */
export interface WebRoutesOptions {
  /** The folder `scripts/build-web.mjs` writes (`dist/web`). */
  webDir: string;
  /** The access token `serve` created; `/?token=<it>` sets the session cookie. */
  accessToken: string;
}

/** The cookie that carries the access token for the dashboard page (HTTP and WebSocket); the page never reads it (HttpOnly). */
export const TOKEN_COOKIE = 'gatehouse_token';

/**
 * Scripts and styles only from this server; sockets to it (CSP3 `'self'` covers ws: to the
 * same host, the loopback entries cover browsers that predate that); no inline code, no
 * framing, no plugins. xterm's own `<style>` elements are adopted as constructed
 * stylesheets by the page (`src/web/adopt-styles.ts`), so `style-src` needs no `'unsafe-inline'`.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The files the dashboard is made of, by URL path. */
const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/styles.css': { file: 'styles.css', type: 'text/css; charset=utf-8' },
  '/xterm.css': { file: 'xterm.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  // The single-use approval page a notification links to: it holds no data, its token stays in the fragment.
  '/approve': { file: 'approve.html', type: 'text/html; charset=utf-8' },
  '/approve.js': { file: 'approve.js', type: 'text/javascript; charset=utf-8' },
};

/** A token must be a plain cookie value (RFC 6265 cookie-octets) so it is sent back unchanged. */
const COOKIE_VALUE_RE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/;

/** Headers every dashboard response carries: nothing cached, nothing framed, no referrer leaks. */
function baseHeaders(type: string): Record<string, string> {
  return {
    'content-type': type,
    'cache-control': 'no-store',
    'content-security-policy': DASHBOARD_CSP,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): null {
  res.writeHead(status, { ...baseHeaders(type), 'content-length': String(Buffer.byteLength(body)), ...extra });
  res.end(body);
  return null;
}

/** A small self-contained HTML page (no styles: the CSP forbids inline ones) for errors. */
function page(title: string, text: string): string {
  const esc = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>\n`;
}

async function serveFile(res: ServerResponse, webDir: string, file: string, type: string): Promise<null> {
  let body: Buffer;
  try {
    body = await readFile(join(webDir, file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const hint = 'The dashboard has not been built: run `npm run build` (or `node scripts/build-web.mjs`), then reload.';
    return send(res, 503, 'text/html; charset=utf-8', page('Dashboard not built', hint));
  }
  return send(res, 200, type, body);
}

/** A sign-in body is `{"token": "<64 hex>"}`; anything much bigger is not one. */
const SIGN_IN_BODY_LIMIT = 1024;

/** Strict same-site: a page on another site can neither send it nor make us set it. */
function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

function signIn(ctx: RouteContext, expected: Buffer, token: string): null {
  const presented = ctx.query.get('token') ?? '';
  if (!digestMatches(presented, expected)) {
    const text = 'That link does not carry this server\u2019s access token. Open the dashboard URL that `gatehouse serve` printed when it started.';
    return send(ctx.res, 401, 'text/html; charset=utf-8', page('Not signed in', text));
  }
  return send(ctx.res, 303, 'text/plain; charset=utf-8', 'Signed in: continue to /\n', { location: '/', 'set-cookie': tokenCookie(token) });
}

/**
 * `POST /login {"token"}`: the token the user pasted into the page, in the body (never in a
 * URL, so no log or history holds it), traded for the same cookie, so a reload stays signed in.
 * JSON only: a cross-site form cannot send it, and the server refuses cross-site requests anyway.
 */
async function signInPosted(ctx: RouteContext, expected: Buffer, token: string): Promise<Reply | null> {
  const body = await readJsonBody(ctx.req, SIGN_IN_BODY_LIMIT);
  if (!body.ok) return body.reply;
  const presented = typeof body.value === 'object' && body.value !== null ? (body.value as { token?: unknown }).token : undefined;
  if (typeof presented !== 'string' || !digestMatches(presented, expected)) {
    return errorReply(401, 'unauthorized', 'that is not this server\u2019s access token: copy it from the dashboard URL `gatehouse serve` printed (after `?token=`), or open that URL');
  }
  ctx.res.writeHead(204, { 'cache-control': 'no-store', 'set-cookie': tokenCookie(token) });
  ctx.res.end();
  return null;
}

/**
 * Adds the dashboard to `router`: `GET /` (index.html, or a sign-in when `?token=` is given),
 * `GET /login?token=`, `POST /login {token}`, `GET /api/agents` (the agents that can be gated and
 * their programs), and the bundle's assets, read from `webDir` on each request.
 * @example addWebRoutes(router, { webDir: resolve('dist/web'), accessToken })
 */
export function addWebRoutes(router: Router, opts: WebRoutesOptions): Router {
  if (!COOKIE_VALUE_RE.test(opts.accessToken)) throw new Error('addWebRoutes: the access token must be a plain cookie value (e.g. hex or base64url)');
  const expected = secretDigest(opts.accessToken);
  router.add({
    method: 'GET',
    path: '/',
    handle: (ctx) => (ctx.query.has('token') ? signIn(ctx, expected, opts.accessToken) : serveFile(ctx.res, opts.webDir, 'index.html', 'text/html; charset=utf-8')),
  });
  router.add({ method: 'GET', path: '/login', handle: (ctx) => signIn(ctx, expected, opts.accessToken) });
  router.add({ method: 'POST', path: '/login', handle: (ctx) => signInPosted(ctx, expected, opts.accessToken) });
  // The agents this build can gate, for the new-session form; public like the page itself.
  router.add({ method: 'GET', path: '/api/agents', handle: () => ({ status: 200, body: { agents: agentPrograms() } }) });
  for (const [path, asset] of Object.entries(ASSETS)) {
    router.add({ method: 'GET', path, handle: (ctx) => serveFile(ctx.res, opts.webDir, asset.file, asset.type) });
  }
  return router;
}
