// The event registry: every topic the `/ws` endpoint publishes, declared once with its
// payload schema; the wire union and the subscription patterns are derived from it.
import { z } from 'zod';
import { PendingList } from './approvals.js';
import { ExitInfo, PtyInfo } from './pty.js';

/**
 * Every topic and its payload. `pty.output` and `pty.resized` reach only connections
 * watching that session (they spawned or attached it); the rest reach every subscriber.
 */
export const EVENT_SCHEMAS = {
  /** A PTY was spawned over the WebSocket. */
  'pty.spawned': z.strictObject({ session_id: z.string(), info: PtyInfo }),
  /**
   * Output bytes, base64. `seq` is the manager's sequence number of the chunk; a chunk
   * larger than a frame arrives as several events with the same `seq`, in order, and a
   * slow viewer loses whole chunks only. Apply only chunks with `seq` above the `seq` that
   * `pty.attach` returned.
   */
  'pty.output': z.strictObject({ session_id: z.string(), seq: z.number().int(), data: z.string() }),
  /** The controller changed the terminal size. */
  'pty.resized': z.strictObject({ session_id: z.string(), cols: z.number().int(), rows: z.number().int() }),
  /** The process ended; sent after its last `pty.output`. */
  'pty.exit': ExitInfo.extend({ session_id: z.string() }),
  /** The approval queue changed (filed, answered, expired): the pending list, oldest first, as much as fits a frame. */
  'approvals.changed': PendingList,
} as const satisfies Record<string, z.ZodType>;

/** A topic name, e.g. `pty.output`. */
export type Topic = keyof typeof EVENT_SCHEMAS;

/** The payload of `topic`. */
export type EventData<T extends Topic> = z.infer<(typeof EVENT_SCHEMAS)[T]>;

/** The `params` of an `event` notification, one member per topic; `ts` is epoch milliseconds. */
export type WireEvent = { [T in Topic]: { topic: T; data: EventData<T>; seq: number; ts: number } }[Topic];

/** Every topic, in declaration order. */
export const TOPICS = Object.keys(EVENT_SCHEMAS) as Topic[];

/**
 * Namespaces a pattern may name. `audit` has no topics yet, but clients subscribe to
 * `audit.*` already and must not be refused for it.
 */
export const TOPIC_NAMESPACES = ['pty', 'approvals', 'audit'] as const;

/** True if `name` is a declared topic. */
function isTopic(name: string): name is Topic {
  return Object.hasOwn(EVENT_SCHEMAS, name);
}

/**
 * Checks a subscription pattern: `*`, `<namespace>.*` or an exact topic. Returns the
 * topics it covers, or null when it names nothing we could ever publish.
 * @example topicsOf('pty.*') // ['pty.spawned', 'pty.output', 'pty.resized', 'pty.exit']
 */
export function topicsOf(pattern: string): Topic[] | null {
  if (pattern === '*') return [...TOPICS];
  if (pattern.endsWith('.*')) {
    const ns = pattern.slice(0, -2);
    if (!(TOPIC_NAMESPACES as readonly string[]).includes(ns)) return null;
    return TOPICS.filter((t) => t.startsWith(`${ns}.`));
  }
  return isTopic(pattern) ? [pattern] : null;
}

/**
 * Parses a received event against the registry, strictly (an unknown field fails): for
 * tests and clients written in TypeScript; the server never re-validates what it built itself.
 */
export function parseWireEvent(params: unknown): WireEvent | null {
  if (typeof params !== 'object' || params === null) return null;
  const { topic, data, seq, ts } = params as Record<string, unknown>;
  if (typeof topic !== 'string' || !isTopic(topic) || typeof seq !== 'number' || typeof ts !== 'number') return null;
  if (Object.keys(params).some((k) => !['topic', 'data', 'seq', 'ts'].includes(k))) return null;
  const parsed = EVENT_SCHEMAS[topic].safeParse(data);
  return parsed.success ? ({ topic, data: parsed.data, seq, ts } as WireEvent) : null;
}
