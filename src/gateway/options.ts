// The options of `gatehouse serve` and the bind rule: a port reachable from other
// machines is refused unless every approvals request must carry a scoped token.
import { isIP } from 'node:net';
import { tokenPrincipal } from '../core/approvals/principal.js';
import type { Result } from '../core/result.js';
import { fail, ok } from '../core/result.js';
import type { WebSocketOptions } from './ws/endpoint.js';
import type { Router } from './router.js';
import type { Credentials } from './credentials.js';
import type { HostPolicy } from './host-origin.js';
import type { ProjectSource } from './projects/served-project.js';

/** What a scoped token lets its holder do. */
export type Scope = 'approvals:read' | 'approvals:resolve';

/** Every scope, for validation. */
const SCOPES: readonly Scope[] = ['approvals:read', 'approvals:resolve'];

/** A bearer token configured for the gateway; the secret itself is never stored in config. */
export interface ScopedToken {
  /** The token's name; requests carrying it act as principal `token:<name>`. */
  principal: string;
  scopes: Scope[];
  /** Hex SHA-256 of the secret. */
  sha256?: string;
  /** Name of an environment variable holding the secret. */
  env?: string;
}

/** How to start the gateway. */
export interface GatewayOptions {
  /** The project state folder whose `approvals/` queue the API serves (with `projects`: the state base, served per project instead). */
  projectState: string;
  /** The project's worktree, named in `GET /api/projects` (single-project mode). */
  worktree?: string;
  /**
   * Serve several projects (`serve --all`): each request picks one with `?project=<key>`, and
   * `projectState`'s queue, `websocket` and per-project routes give way to the source's.
   * Called once the server's credentials and Host rule exist, which the projects' `/ws` endpoints share.
   */
  projects?: (shared: { credentials: Credentials; hosts: HostPolicy; log: (line: string) => void }) => ProjectSource;
  /** Interface to bind; default {@link DEFAULT_HOST}. */
  host: string;
  /** Port to bind; default {@link DEFAULT_PORT}; 0 picks any free port. */
  port: number;
  /**
   * The secret of the person running the server (`serve` makes a fresh one per start): it
   * grants every capability, over HTTP and WebSocket. At least 16 characters.
   */
  accessToken: string;
  /**
   * Who holds the access token, named in every resolution made with it as
   * `dashboard-operator:<operator>`; default the OS user running the server.
   */
  operator?: string;
  /** Scoped tokens for other resolvers (CI, a second person); each is named in its resolutions. */
  tokens: ScopedToken[];
  /** Where `env` token secrets are read from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Extra `Host` header values accepted on a non-loopback bind (`name` or `name:port`),
   * e.g. the machine's DNS name; IP literals and loopback names are always accepted.
   */
  allowedHosts?: string[];
  /**
   * Where people reach the server through a reverse proxy or tunnel (`--public-url`, already
   * checked): its host and origin are accepted as this server's own.
   */
  publicUrl?: string | null;
  /** A team store is linked (`serve --store`): `GET /api/projects` says so and the dashboard shows its team panel. */
  team?: boolean;
  /** Where unexpected server errors are reported; default stderr. Never receives secrets. */
  log?: (line: string) => void;
  /** Serve JSON-RPC over WebSocket at `/ws` (PTYs, events, approvals); absent, upgrades are refused. */
  websocket?: WebSocketOptions;
  /** Adds the owner's routes (dashboard, audit status) to the router, after the approvals API. */
  routes?: (router: Router) => void;
}

/** Loopback by default: the approvals API decides what agents may do. */
export const DEFAULT_HOST = '127.0.0.1';
/** An unassigned port, easy to remember, away from common dev-server ports (3000, 5173, 8080). */
export const DEFAULT_PORT = 7337;

/** A SHA-256 digest in hex. */
const SHA256_HEX_RE = /^[0-9a-fA-F]{64}$/;
/** A portable environment variable name. */
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Strips the brackets of an IPv6 literal (`[::1]` → `::1`). */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** True if `host` (a name or IP literal, brackets allowed) always means this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = unbracket(host).toLowerCase();
  if (h === 'localhost') return true;
  const family = isIP(h);
  if (family === 4) return h.startsWith('127.');
  if (family === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/**
 * Refuses a non-loopback bind unless scoped tokens are configured: the access token is a
 * local operator's secret, and other machines' callers must each be named by their own token.
 * @example checkBind('0.0.0.0', []) // { ok: false, reason: 'refusing to listen on 0.0.0.0 …' }
 */
export function checkBind(host: string, tokens: ScopedToken[]): Result<void> {
  if (host.trim() === '') return fail('gateway host is empty: set gateway.host (e.g. 127.0.0.1)');
  if (isLoopbackHost(host)) return ok(undefined);
  if (tokens.length > 0) return ok(undefined);
  return fail(
    `refusing to listen on ${host} without scoped tokens: anyone who can reach that address could resolve approvals. ` +
      'Bind to 127.0.0.1, or configure approvals tokens (sha256 or env) in gatehouse.yaml.',
  );
}

/**
 * Checks the token list: names plain and unique, known scopes, exactly one secret source.
 * @example checkTokens([{ principal: 'ci', scopes: ['approvals:read'], env: 'GH_TOKEN' }]) // { ok: true }
 */
export function checkTokens(tokens: ScopedToken[]): Result<void> {
  const seen = new Set<string>();
  for (const t of tokens) {
    // The name becomes the principal id `token:<name>` in every resolution: the principal rules apply.
    const named = tokenPrincipal(t.principal, t.principal);
    if (!named.ok) return fail(`token name ${JSON.stringify(t.principal)} is not allowed: ${named.reason}`);
    if (seen.has(t.principal)) return fail(`token name "${t.principal}" is configured twice: give each token its own name`);
    seen.add(t.principal);
    if (t.scopes.length === 0) return fail(`token "${t.principal}" has no scopes: add approvals:read and/or approvals:resolve`);
    const unknown = t.scopes.find((s) => !SCOPES.includes(s));
    if (unknown !== undefined) return fail(`token "${t.principal}" has unknown scope ${JSON.stringify(unknown)}: use ${SCOPES.join(' or ')}`);
    if ((t.sha256 === undefined) === (t.env === undefined)) {
      return fail(`token "${t.principal}" needs exactly one of sha256 (hex digest of the secret) or env (a variable holding it)`);
    }
    if (t.sha256 !== undefined && !SHA256_HEX_RE.test(t.sha256)) {
      return fail(`token "${t.principal}": sha256 must be 64 hex digits (e.g. from \`printf %s SECRET | sha256sum\`)`);
    }
    if (t.env !== undefined && !ENV_NAME_RE.test(t.env)) {
      return fail(`token "${t.principal}": env ${JSON.stringify(t.env)} is not an environment variable name`);
    }
  }
  return ok(undefined);
}
