// A small method + path router for the gateway's HTTP side: routes declare the scope
// they need, and later features (hook endpoints, PTYs, the dashboard) add their own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../core/approvals/principal.js';
import type { Reply } from './http-io.js';
import type { Scope } from './options.js';

/** The HTTP methods routes may use. */
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route handler gets for one request. */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path parameters, percent-decoded (`/approvals/:id` → `{id}`); the server refuses undecodable ones. */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The authenticated caller; null only on routes without a scope. */
  principal: Principal | null;
}

/** A handler returns a JSON reply, or null once it has written the response itself. */
type RouteHandler = (ctx: RouteContext) => Promise<Reply | null> | Reply | null;

/** One route. A route with a `scope` is reached only by a caller holding it. */
export interface Route {
  method: Method;
  /** Literal segments and `:name` parameters, e.g. `/approvals/:id/resolve`. */
  path: string;
  scope?: Scope;
  handle: RouteHandler;
}

/** The outcome of matching a request against the routes. */
export type RouteMatch = { kind: 'found'; route: Route; params: Record<string, string>; badParam: string | null } | { kind: 'method_not_allowed'; allow: Method[] } | { kind: 'not_found' };

interface Compiled {
  route: Route;
  /** A literal segment, or `{param}` for a `:name` segment. */
  segments: (string | { param: string })[];
}

/** Splits a request target into its path segments and query; null if it is not origin-form. */
export function splitTarget(target: string): { segments: string[]; query: URLSearchParams } | null {
  if (!target.startsWith('/') || target.startsWith('//')) return null;
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  return { segments: path.split('/').slice(1), query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)) };
}

/**
 * Routes by method and path, compiling each pattern once when it is added.
 * @example new Router().add({ method: 'GET', path: '/healthz', handle: () => ({ status: 200, body: { ok: true } }) })
 */
export class Router {
  readonly #routes: Compiled[] = [];

  /** Adds a route; a second route for the same method and pattern is a bug. */
  add(route: Route): this {
    const segments = route.path
      .split('/')
      .slice(1)
      .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : s));
    const key = (c: Compiled): string => `${c.route.method} ${c.segments.map((s) => (typeof s === 'string' ? s : ':')).join('/')}`;
    const compiled: Compiled = { route, segments };
    if (this.#routes.some((r) => key(r) === key(compiled))) throw new Error(`duplicate route ${route.method} ${route.path}`);
    this.#routes.push(compiled);
    return this;
  }

  /** Finds the route for `method` and the path `segments` (as split from the raw target). */
  match(method: string, segments: readonly string[]): RouteMatch {
    const allow: Method[] = [];
    for (const c of this.#routes) {
      const m = matchSegments(c.segments, segments);
      if (m === null) continue;
      if (c.route.method === method) return { kind: 'found', route: c.route, params: m.params, badParam: m.bad };
      allow.push(c.route.method);
    }
    return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  }
}

/**
 * Null if the path does not fit; `bad` names a parameter that is not valid percent-encoding,
 * reported only after the caller is authenticated.
 */
type SegmentMatch = { params: Record<string, string>; bad: string | null } | null;

function matchSegments(pattern: Compiled['segments'], segments: readonly string[]): SegmentMatch {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  let bad: string | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    const s = segments[i] ?? '';
    if (typeof p === 'string') {
      if (p !== s) return null;
      continue;
    }
    if (p === undefined || s === '') return null;
    try {
      params[p.param] = decodeURIComponent(s);
    } catch {
      bad ??= p.param;
    }
  }
  return { params, bad };
}
