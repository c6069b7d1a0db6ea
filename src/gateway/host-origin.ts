// Host and Origin checks: refuse DNS rebinding (a foreign name that resolves to us) and
// cross-site requests from a browser page, on every request, tokens or not.
import { isIP } from 'node:net';
import { isLoopbackHost, unbracket } from './options.js';

/** What `Host` values a running server accepts. */
export interface HostPolicy {
  /** The port the server actually listens on. */
  port: number;
  /** The host the server is bound to, as configured. */
  bindHost: string;
  /** Extra accepted `Host` values (`name` or `name:port`), lower-case. */
  extra: string[];
  /**
   * Where people reach the server through a reverse proxy or tunnel (`--public-url`): its
   * `Host` value (as the URL writes it, lower-case) and its origin are accepted too.
   */
  public?: { host: string; origin: string } | null;
}

/** The `Host` and origin a public URL stands for. */
export function publicAuthority(url: string): { host: string; origin: string } {
  const u = new URL(url);
  return { host: u.host.toLowerCase(), origin: u.origin.toLowerCase() };
}

/** True if a browser request comes from the public URL's own page, through that URL. */
export function isPublicOrigin(origin: string | undefined, hostHeader: string | undefined, policy: HostPolicy): boolean {
  const pub = policy.public;
  return pub != null && origin !== undefined && origin.toLowerCase() === pub.origin && hostHeader?.toLowerCase() === pub.host;
}

/** A parsed `Host` header or origin authority. */
export interface Authority {
  /** Lower-case name or IP literal; IPv6 keeps its brackets. */
  host: string;
  port: number;
}

/** The port a `Host` header without one means: plain HTTP. */
const HTTP_DEFAULT_PORT = 80;
/** Largest TCP port. */
const MAX_PORT = 65_535;
/** A DNS name, an IPv4 literal or a bracketed IPv6 literal, then an optional port; nothing else. */
const AUTHORITY_RE = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::([0-9]{1,5}))?$/;

/**
 * Parses a `Host` header value strictly; null if it is not `host[:port]`.
 * @example parseAuthority('LOCALHOST:7337') // { host: 'localhost', port: 7337 }
 */
export function parseAuthority(value: string): Authority | null {
  const m = AUTHORITY_RE.exec(value.toLowerCase());
  if (m === null || m[1] === undefined) return null;
  const port = m[2] === undefined ? HTTP_DEFAULT_PORT : Number(m[2]);
  if (port < 1 || port > MAX_PORT) return null;
  return { host: m[1], port };
}

/**
 * True if the request's `Host` header is one this server answers to. A name an attacker
 * controls (DNS rebinding) never is; IP literals cannot be rebound, so on a non-loopback
 * bind they are accepted along with the configured extra names.
 */
export function isAllowedHost(value: string | undefined, policy: HostPolicy): boolean {
  if (value === undefined) return false;
  if (policy.public != null && value.toLowerCase() === policy.public.host) return true;
  const a = parseAuthority(value);
  if (a === null) return false;
  if (policy.extra.includes(`${a.host}:${a.port}`)) return true;
  if (a.port !== policy.port) return false;
  if (isLoopbackHost(a.host)) return true;
  if (policy.extra.includes(a.host)) return true;
  if (isLoopbackHost(policy.bindHost)) return false;
  return isIP(unbracket(a.host)) !== 0 || a.host === policy.bindHost.toLowerCase();
}

/** Parses an `Origin` header that must be exactly `http://host[:port]`; null otherwise. */
function parseOrigin(origin: string): Authority | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || url.origin !== origin.toLowerCase()) return null;
  return parseAuthority(url.host);
}

/** True if `origin` is a page served from this machine's loopback on `port`. */
export function isLoopbackOrigin(origin: string, port: number): boolean {
  const a = parseOrigin(origin);
  return a !== null && a.port === port && isLoopbackHost(a.host);
}

/**
 * True if a request may proceed given its `Origin`: absent (not a browser, or a
 * same-origin GET), a loopback page on our port, or the very origin the request's
 * `Host` names. `null` and every other site are refused.
 */
export function isAllowedOrigin(origin: string | undefined, hostHeader: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  if (isLoopbackOrigin(origin, port)) return true;
  const a = parseOrigin(origin);
  const h = hostHeader === undefined ? null : parseAuthority(hostHeader);
  return a !== null && h !== null && a.host === h.host && a.port === h.port;
}
