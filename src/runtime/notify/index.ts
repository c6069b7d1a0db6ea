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
  /** `--public-url`, which wins over `notify.public_url`: where people reach `gatehouse serve`. */
  publicUrl?: string | null;
  /** Issues the single-use approval links each message carries, under the public URL (none without one). */
  links?: LinkBook;
  /** The project's key when one server serves several (`serve --all`): a tap on a batch opens that project. */
  projectKey?: string;
}

/** Checks a public URL: http(s), no credentials, no query or fragment (links are built under it). */
export function checkPublicUrl(url: string): Result<string> {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return fail(`--public-url must be an http:// or https:// URL, got ${JSON.stringify(url)}`);
  const u = new URL(url);
  if (u.username !== '' || u.password !== '') return fail('--public-url must not carry a user name or password: links are sent to phones and chat rooms');
  if (u.search !== '' || u.hash !== '') return fail('--public-url must not have a query or fragment; give the base URL, e.g. https://gatehouse.example.com');
  return ok(u.href.endsWith('/') ? u.href : `${u.href}/`);
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
  const base = opts.publicUrl ?? opts.config.public_url ?? null;
  const checked = base === null ? ok(null) : checkPublicUrl(base);
  if (!checked.ok) return checked;
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
