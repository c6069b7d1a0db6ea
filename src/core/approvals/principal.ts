// Principals: who resolved an approval. Every resolution names one, and the id's namespace
// must agree with how the caller authenticated, so a person can never pass as the system.
import { fail, ok, type Result } from '../result.js';

/**
 * How the caller proved who it is: a scoped token from config, the access token of
 * `gatehouse serve` (its dashboard), a single-use approval link a notification carried, a
 * shell of the user, or Gatehouse's own code.
 */
type PrincipalAuth = 'scoped-token' | 'access-token' | 'link' | 'local-shell' | 'server-internal';

/**
 * Who decided. `id` is `os-user:<name>` (local shell), `token:<name>` (scoped token),
 * `dashboard-operator:<name>` (the holder of `serve`'s access token: the user who started
 * it), `link:<channel>` (whoever opened a single-use link sent on that notification channel)
 * or `system:<component>` (Gatehouse itself). `grant` is the scope a token was issued
 * for; `session` pins the principal to one session.
 */
export interface Principal {
  id: string;
  auth: PrincipalAuth;
  session?: string;
  grant?: string;
}

/** The namespace of the access token's holder: the dashboard cannot tell people apart, so it names who started the server. */
const DASHBOARD_OPERATOR_PREFIX = 'dashboard-operator:';

/** The reserved namespace: only Gatehouse's own components (auth `server-internal`) use it. */
export const SYSTEM_PREFIX = 'system:';

/**
 * A name after the namespace: starts with a letter or digit, then letters, digits and `._@-`,
 * at most 128 characters — enough for OS user names and token labels, and nothing that can
 * hide in a log line or an audit record (no spaces, controls, `:` or `/`).
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

/**
 * A system component: NAME segments joined by `/` (`approval-queue/ttl-expiry`), at most
 * 128 characters. Components are fixed in our code, so a hierarchy costs nothing to trust.
 */
const SYSTEM_COMPONENT = /^(?=.{1,128}$)[A-Za-z0-9][A-Za-z0-9._@-]*(?:\/[A-Za-z0-9][A-Za-z0-9._@-]*)*$/;

/** Session ids, as everywhere else in Gatehouse. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Which id namespace each kind of authentication must use. */
const NAMESPACE_FOR: Readonly<Record<PrincipalAuth, string>> = {
  'scoped-token': 'token:',
  'local-shell': 'os-user:',
  'access-token': DASHBOARD_OPERATOR_PREFIX,
  link: 'link:',
  'server-internal': SYSTEM_PREFIX,
};

/** Validates a principal: a known auth, an id in that auth's namespace, a well-formed name, session and grant. */
export function checkPrincipal(p: Principal): Result<Principal> {
  if (typeof p !== 'object' || p === null || typeof p.id !== 'string') return fail('A principal needs an id; name who is deciding, e.g. os-user:alice.');
  const ns = Object.hasOwn(NAMESPACE_FOR, p.auth) ? NAMESPACE_FOR[p.auth] : undefined;
  if (ns === undefined) return fail(`Principal ${JSON.stringify(p.id)} has unknown auth ${JSON.stringify(p.auth)}; use scoped-token, access-token, link, local-shell or server-internal.`);
  if (p.id.startsWith(SYSTEM_PREFIX) && p.auth !== 'server-internal') {
    return fail(`Principal ${JSON.stringify(p.id)} uses the reserved system: namespace, which is only for Gatehouse's own components; a person resolves as os-user:, token: or dashboard-operator:.`);
  }
  if (!p.id.startsWith(ns)) return fail(`A ${p.auth} principal's id must start with ${ns}, not ${JSON.stringify(p.id)}.`);
  const name = p.id.slice(ns.length);
  const system = p.auth === 'server-internal';
  if (!(system ? SYSTEM_COMPONENT : NAME).test(name)) {
    const shape = system ? '/-separated names of letters, digits or ._@-' : 'letters, digits or ._@-';
    return fail(`Principal ${JSON.stringify(p.id)}: the name after ${ns} must be 1–128 characters of ${shape}, each name starting with a letter or digit.`);
  }
  if (p.session !== undefined && (typeof p.session !== 'string' || !SESSION_ID.test(p.session))) {
    return fail(`Principal ${JSON.stringify(p.id)} names an invalid session; session ids are 1–128 letters, digits, _ or -.`);
  }
  if (p.auth === 'scoped-token') {
    if (typeof p.grant !== 'string' || !NAME.test(p.grant)) return fail(`Token principal ${JSON.stringify(p.id)} needs the grant it was issued for (letters, digits, ._@-).`);
  } else if (p.grant !== undefined) {
    return fail(`Principal ${JSON.stringify(p.id)} has a grant, but only scoped tokens carry one; drop it.`);
  }
  return ok(p);
}

/** The person at a local shell, by OS user name. */
export function osUserPrincipal(name: string): Result<Principal> {
  return checkPrincipal({ id: `os-user:${name}`, auth: 'local-shell' });
}

/** A caller holding the scoped token `name`, issued for `grant`. */
export function tokenPrincipal(name: string, grant: string): Result<Principal> {
  return checkPrincipal({ id: `token:${name}`, auth: 'scoped-token', grant });
}

/** The holder of `gatehouse serve`'s access token, named after the OS user who started the server. */
export function dashboardOperator(name: string): Result<Principal> {
  return checkPrincipal({ id: `${DASHBOARD_OPERATOR_PREFIX}${name}`, auth: 'access-token' });
}

/** Whoever used a single-use approval link sent on notification channel `channel` (`ntfy`, `webhook-2`). */
export function linkPrincipal(channel: string): Result<Principal> {
  return checkPrincipal({ id: `link:${channel}`, auth: 'link' });
}

/**
 * Gatehouse itself (e.g. `system:approval-expiry` when a request times out). Components
 * are names fixed in our code, so a bad one is a bug and throws.
 */
export function systemPrincipal(component: string): Principal {
  const p: Principal = { id: `${SYSTEM_PREFIX}${component}`, auth: 'server-internal' };
  const checked = checkPrincipal(p);
  if (!checked.ok) throw new Error(`systemPrincipal: ${checked.reason}`);
  return p;
}
