// Who may receive each topic of the event registry (protocol/events.ts declares the topics
// and their payloads once): a subscription to a topic needs its capability.
import { EVENT_SCHEMAS, type Topic } from '../../protocol/events.js';
import type { Capability } from '../credentials.js';

export { parseWireEvent, TOPIC_NAMESPACES, topicsOf } from '../../protocol/events.js';
export type { Topic, WireEvent } from '../../protocol/events.js';

/** The capability a connection needs to subscribe to each topic. */
const TOPIC_CAPABILITIES = {
  'pty.spawned': 'pty',
  'pty.output': 'pty',
  'pty.resized': 'pty',
  'pty.exit': 'pty',
  'approvals.changed': 'approvals:read',
} as const satisfies Record<Topic, Capability>;

/** Every topic with its payload schema and the capability needed to subscribe. */
export const EVENT_TOPICS = Object.fromEntries((Object.keys(EVENT_SCHEMAS) as Topic[]).map((t) => [t, { capability: TOPIC_CAPABILITIES[t], schema: EVENT_SCHEMAS[t] }])) as {
  readonly [T in Topic]: { capability: (typeof TOPIC_CAPABILITIES)[T]; schema: (typeof EVENT_SCHEMAS)[T] };
};
