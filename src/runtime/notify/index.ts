// Starting notifications for a long-lived Gatehouse process (`gatehouse serve`).
import { basename } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import type { ApprovalQueue } from '../approvals/queue.js';
import type { NotifyConfig } from '../config.js';
import { resolveChannels } from './channels.js';
import type { LinkBook } from './links.js';
import { Notifier } from './notifier.js';

export { LinkBook } from './links.js';
export { Notifier } from './notifier.js';

/** What {@link startNotifications} needs. */
export interface StartNotificationsOptions {
  config: NotifyConfig;
  queue: ApprovalQueue;
  projectState: string;
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** `--public-url`, which wins over `notify.public_url` and GATEHOUSE_PUBLIC_URL ({@link publicUrlIn}): where people reach `gatehouse serve`. */
  publicUrl?: string | null;
  /** Issues the single-use approval links each message carries, under the public URL (none without one). */
  links?: LinkBook;
  /** The project's key when one server serves several (`serve --all`): a tap on a batch opens that project. */
  projectKey?: string;
}

/** Checks a public URL named by `what`: http(s), no credentials, no query or fragment (links are built under it). */
function checkPublicUrl(url: string, what = '--public-url'): Result<string> {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return fail(`${what} must be an http:// or https:// URL, got ${JSON.stringify(url)}`);
  const u = new URL(url);
  if (u.username !== '' || u.password !== '') return fail(`${what} must not carry a user name or password: links are sent to phones and chat rooms`);
  if (u.search !== '' || u.hash !== '') return fail(`${what} must not have a query or fragment; give the base URL, e.g. https://gatehouse.example.com`);
  return ok(u.href.endsWith('/') ? u.href : `${u.href}/`);
}

/**
 * The public URL in force: `--public-url` when given, else the project's `notify.public_url`, else
 * GATEHOUSE_PUBLIC_URL. Answer links point to it and the server accepts requests addressed to it,
 * so a project's value (which a cloned repository brings) counts only when this machine says the
 * same in GATEHOUSE_PUBLIC_URL; alone, it is refused with what to do.
 */
export function publicUrlIn(flag: string | null | undefined, configured: string | undefined, env: NodeJS.ProcessEnv): Result<string | null> {
  if (flag != null) return checkPublicUrl(flag);
  const given = env['GATEHOUSE_PUBLIC_URL'];
  const mine = given === undefined || given.trim() === '' ? null : checkPublicUrl(given.trim(), 'GATEHOUSE_PUBLIC_URL:');
  if (mine !== null && !mine.ok) return mine;
  if (configured === undefined) return ok(mine?.value ?? null);
  const theirs = checkPublicUrl(configured, 'gatehouse.yaml notify.public_url:');
  if (!theirs.ok) return theirs;
  if (mine?.value === theirs.value) return theirs;
  return fail(
    `gatehouse.yaml notify.public_url names ${theirs.value}, which answer links would point to and this server would accept requests for, but this machine has not said so ` +
      `(${mine === null ? 'GATEHOUSE_PUBLIC_URL is not set' : `GATEHOUSE_PUBLIC_URL is ${mine.value}`}): a repository's config cannot choose that alone. ` +
      `If it is yours, start serve with --public-url ${theirs.value} or export GATEHOUSE_PUBLIC_URL=${theirs.value}; otherwise remove it from the config.`,
  );
}

/** A link per call and channel: `<base>approve#t=<token>`, the token in the fragment no server or log sees. */
function linkIssuer(base: string, links: LinkBook): NonNullable<ConstructorParameters<typeof Notifier>[0]['linkFor']> {
  return (approval, channel) => `${base}approve#t=${links.issue({ approvalId: approval.id, channel: channel.name, expiresAt: Date.parse(approval.expires_at) })}`;
}

/**
 * Starts a notifier for the configured channels, or returns null when none are configured.
 * A channel that cannot work (a variable it names is unset, no notify-send) is an error.
 */
export function startNotifications(opts: StartNotificationsOptions): Result<Notifier | null> {
  const channels = resolveChannels(opts.config, opts.env);
  if (!channels.ok) return channels;
  if (channels.value.length === 0) return ok(null);
  const checked = publicUrlIn(opts.publicUrl, opts.config.public_url, opts.env);
  if (!checked.ok) return checked;
  const base = checked.value;
  const notifier = new Notifier({
    queue: opts.queue,
    projectState: opts.projectState,
    project: basename(opts.projectRoot),
    channels: channels.value,
    batchMs: opts.config.batch_ms,
    dashboardUrl: checked.value === null || opts.projectKey === undefined ? checked.value : `${checked.value}?project=${encodeURIComponent(opts.projectKey)}`,
    ...(base === null || opts.links === undefined ? {} : { linkFor: linkIssuer(checked.value as string, opts.links) }),
    log: opts.log,
  });
  notifier.start();
  return ok(notifier);
}
