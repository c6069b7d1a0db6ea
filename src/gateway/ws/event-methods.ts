// `events.subscribe` / `events.unsubscribe`: which topics a connection receives, by exact
// name or namespace glob, each topic only with the capability the registry names for it.
import { z } from 'zod';
import { OUTPUT_ENCODINGS } from '../../protocol/binary-output.js';
import { RpcError } from './errors.js';
import type { Topic } from './events.js';
import { EVENT_TOPICS, TOPIC_NAMESPACES, topicsOf } from './events.js';
import type { Method, MethodContext } from './method.js';
import { defineMethod } from './method.js';

/** Patterns per call: there are only a handful of topics, so more is a client bug. */
const MAX_TOPIC_PATTERNS = 32;

const TopicsParams = z.strictObject({ topics: z.array(z.string()).min(1).max(MAX_TOPIC_PATTERNS) });

/**
 * `output` picks how `pty.output` reaches this connection from now on (`binary`: binary
 * messages, protocol/binary-output.ts); left out, it stays as it was (`base64` at first).
 */
const SubscribeParams = TopicsParams.extend({ output: z.enum(OUTPUT_ENCODINGS).optional() });

/** The topics the patterns cover, or the error naming the first bad or forbidden one. */
function resolvePatterns(ctx: MethodContext, patterns: readonly string[]): Topic[] | RpcError {
  const out = new Set<Topic>();
  for (const pattern of patterns) {
    const topics = topicsOf(pattern);
    if (topics === null) {
      const examples = TOPIC_NAMESPACES.map((ns) => `${ns}.*`).join(', ');
      return new RpcError('invalid_params', `unknown topic ${JSON.stringify(pattern)}: use ${examples}, * or a topic name such as pty.output`);
    }
    for (const t of topics) {
      const need = EVENT_TOPICS[t].capability;
      if (!ctx.conn.can(need)) return new RpcError('forbidden', `your token cannot receive ${t}: it needs the ${need} capability`);
      out.add(t);
    }
  }
  return [...out];
}

/** The `events.*` methods by name. */
export const EVENT_METHODS: Readonly<Record<string, Method>> = {
  'events.subscribe': defineMethod(null, SubscribeParams, (ctx, p) => {
    const topics = resolvePatterns(ctx, p.topics);
    if (topics instanceof RpcError) return topics;
    const now = ctx.conn.subscribe(topics);
    ctx.subscriptionsChanged();
    if (p.output === undefined) return { topics: now };
    ctx.conn.output = p.output;
    return { topics: now, output: p.output };
  }),
  'events.unsubscribe': defineMethod(null, TopicsParams, (ctx, p) => {
    const topics: Topic[] = [];
    for (const pattern of p.topics) {
      const covered = topicsOf(pattern);
      if (covered === null) return new RpcError('invalid_params', `unknown topic ${JSON.stringify(pattern)}`);
      topics.push(...covered);
    }
    const now = ctx.conn.unsubscribe(topics);
    ctx.subscriptionsChanged();
    return { topics: now };
  }),
};
