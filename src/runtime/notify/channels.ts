// The configured notification channels, with their secrets read from the environment once
// at start: a missing variable is a clear error then, never a silently unsigned message later.
import { fail, ok, type Result } from '../../core/result.js';
import type { NotifyConfig } from '../config.js';
import { channelUrlProblem } from '../config-schema.js';
import { findOnPath } from '../find-on-path.js';

/** One place to tell: its kind, a name for logs and link principals, and what sending needs. */
export type Channel =
  | { kind: 'webhook'; name: string; url: string; secret: string | null }
  | { kind: 'ntfy'; name: string; url: string; token: string | null }
  | { kind: 'slack'; name: string; url: string }
  | { kind: 'desktop'; name: string; program: string };

function fromEnv(env: NodeJS.ProcessEnv, name: string, what: string): Result<string> {
  const v = env[name];
  if (v === undefined || v === '') return fail(`notify: ${what} names the environment variable ${name}, which is not set; export it before starting, or remove the entry from gatehouse.yaml`);
  return ok(v);
}

function urlOf(entry: { url?: string | undefined; url_env?: string | undefined }, env: NodeJS.ProcessEnv, what: string): Result<string> {
  if (entry.url !== undefined) return ok(entry.url);
  const v = fromEnv(env, entry.url_env as string, `${what}'s url_env`);
  if (!v.ok) return v;
  const problem = channelUrlProblem(v.value);
  return problem === null ? v : fail(`notify: ${what}'s url_env (${entry.url_env}): ${problem}`);
}

/**
 * The channels `config` names, in the order written; names are `<kind>` for the first of a
 * kind and `<kind>-<n>` after it (what a link's principal says: `link:ntfy-2`).
 * Desktop notifications need `notify-send` on PATH; without it the entry is an error.
 * @example resolveChannels({ ...config, ntfy: [{ url: 'https://ntfy.sh/t' }] }, process.env) // ok([{ kind: 'ntfy', name: 'ntfy', … }])
 */
export function resolveChannels(config: NotifyConfig, env: NodeJS.ProcessEnv): Result<Channel[]> {
  const out: Channel[] = [];
  const named = (kind: string, i: number): string => (i === 0 ? kind : `${kind}-${i + 1}`);
  for (const [i, w] of config.webhooks.entries()) {
    const what = `webhooks[${i}]`;
    const url = urlOf(w, env, what);
    if (!url.ok) return url;
    const secret = w.secret_env === undefined ? ok(null) : fromEnv(env, w.secret_env, `${what}'s secret_env`);
    if (!secret.ok) return secret;
    out.push({ kind: 'webhook', name: named('webhook', i), url: url.value, secret: secret.value });
  }
  for (const [i, n] of config.ntfy.entries()) {
    const what = `ntfy[${i}]`;
    const url = urlOf(n, env, what);
    if (!url.ok) return url;
    const token = n.token_env === undefined ? ok(null) : fromEnv(env, n.token_env, `${what}'s token_env`);
    if (!token.ok) return token;
    out.push({ kind: 'ntfy', name: named('ntfy', i), url: url.value, token: token.value });
  }
  for (const [i, s] of config.slack.entries()) {
    const url = urlOf(s, env, `slack[${i}]`);
    if (!url.ok) return url;
    out.push({ kind: 'slack', name: named('slack', i), url: url.value });
  }
  if (config.desktop) {
    const program = findOnPath('notify-send', env);
    if (program === null) return fail('notify: desktop is true, but notify-send is not on PATH; install libnotify-bin (Debian/Ubuntu) or set desktop: false');
    out.push({ kind: 'desktop', name: 'desktop', program });
  }
  return ok(out);
}
