// The wire form of a notification for each channel: a signed JSON webhook, ntfy's plain
// HTTP publish, and a Slack-compatible incoming webhook. Building a request does no I/O.
import { createHmac } from 'node:crypto';
import { oneLine, type NotifyMessage } from './message.js';

/** An HTTP request to send: always a POST. */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Version of the webhook's JSON body; a receiver can refuse one it does not know. */
const WEBHOOK_PAYLOAD_VERSION = 1;
/** The header carrying `sha256=<hex HMAC of "<timestamp>.<body>">`. */
const SIGNATURE_HEADER = 'x-gatehouse-signature';
/** The header carrying the Unix time the signature was made at, so a receiver can refuse replays. */
const TIMESTAMP_HEADER = 'x-gatehouse-timestamp';

/** The items as they leave the machine: one masked line of each call, never its whole input. */
function wireItems(message: NotifyMessage) {
  return message.items.map((i) => ({
    id: i.id,
    session_id: i.session_id,
    agent: i.agent,
    tool: i.tool,
    summary: oneLine(i.summary),
    expires_at: i.expires_at,
    ...(i.link === undefined ? {} : { link: i.link }),
  }));
}

/**
 * The HMAC-SHA256 signature of a webhook body, as {@link SIGNATURE_HEADER} carries it.
 * @example webhookSignature('s3cret', 1700000000, '{}') // 'sha256=…'
 */
function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The generic webhook: a JSON body, signed when a secret is configured. `nowS` is Unix seconds. */
export function webhookRequest(url: string, message: NotifyMessage, secret: string | null, nowS: number): OutboundRequest {
  const body = JSON.stringify({
    version: WEBHOOK_PAYLOAD_VERSION,
    event: 'approvals.waiting',
    project: message.project,
    title: message.title,
    text: message.body,
    click: message.click,
    approvals: wireItems(message),
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'gatehouse' };
  if (secret !== null) {
    headers[TIMESTAMP_HEADER] = String(nowS);
    headers[SIGNATURE_HEADER] = webhookSignature(secret, nowS, body);
  }
  return { url, headers, body };
}

/** HTTP headers carry Latin-1 only: ntfy's title goes as plain ASCII, anything else as `?`. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

/** ntfy's publish: POST the message to `<server>/<topic>`, with title, tags and a tap target in headers. */
export function ntfyRequest(url: string, message: NotifyMessage, token: string | null): OutboundRequest {
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8', title: headerSafe(message.title), tags: 'lock', priority: 'high', 'user-agent': 'gatehouse' };
  if (message.click !== null) headers['click'] = message.click;
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  return { url, headers, body: message.body };
}

/** Slack's mrkdwn treats `<`, `>` and `&` as markup: escape them so agent text cannot form a link. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A Slack-compatible incoming webhook (also Mattermost, Discord's /slack endpoint): `{text}` with
 * a link. The calls go in a code block, where neither Slack nor Mattermost nor Discord forms a
 * mention (`@channel`, `@everyone`) or a Markdown link from the agent's text; a backtick in it
 * becomes `'`, so the block cannot be closed early.
 */
export function slackRequest(url: string, message: NotifyMessage): OutboundRequest {
  const link = message.click === null ? '' : `\n<${message.click}|Open>`;
  const text = `*${slackEscape(message.title)}*\n\`\`\`\n${slackEscape(message.body.replaceAll('`', "'"))}\n\`\`\`${link}`;
  return { url, headers: { 'content-type': 'application/json', 'user-agent': 'gatehouse' }, body: JSON.stringify({ text }) };
}
