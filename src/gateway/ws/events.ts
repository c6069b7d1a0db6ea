// The event registry: every topic the `/ws` endpoint publishes, declared once with its
// payload schema and the capability needed to subscribe; the wire union is derived from it.
import { z } from 'zod';
import type { Capability } from '../credentials.js';

/** Why a PTY ended, as the manager reports it. */
const ExitReason = z.enum(['exited', 'closed', 'evicted', 'idle']);

/** How a PTY ended. */
export const ExitInfoSchema = z.object({
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  reason: ExitReason,
});

/** One PTY session as `pty.spawn`, `pty.list` and `pty.spawned` show it (the manager's `PtyInfo`). */
export const PtyInfoSchema = z.object({
  id: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  cwd: z.string(),
  pid: z.number().int(),
  rows: z.number().int(),
  cols: z.number().int(),
  created_at: z.union([z.string(), z.number()]),
  last_activity_at: z.union([z.string(), z.number()]),
  state: z.enum(['running', 'exited']),
  exit: ExitInfoSchema.nullable(),
  label: z.string().optional(),
});

/** A pending approval as the queue lists it (the nonce is included: a resolver echoes it). */
const PendingSchema = z.object({
  id: z.string(),
  nonce: z.string(),
  session_id: z.string(),
  agent: z.string(),
  tool: z.string(),
  summary: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  pid: z.number().int(),
});

/**
 * Every topic, its payload and who may receive it. `pty.output` and `pty.resized` reach
 * only connections watching that session (they spawned or attached it); the rest reach
 * every subscriber.
 */
export const EVENT_TOPICS = {
  /** A PTY was spawned over the WebSocket. */
  'pty.spawned': { capability: 'pty', schema: z.object({ session_id: z.string(), info: PtyInfoSchema }) },
  /**
   * Output bytes, base64. `seq` is the manager's sequence number of the chunk; a chunk
   * larger than a frame arrives as several events with the same `seq`, in order, and a
   * slow viewer loses whole chunks only. Apply only chunks with `seq` above the `seq` that
   * `pty.attach` returned.
   */
  'pty.output': { capability: 'pty', schema: z.object({ session_id: z.string(), seq: z.number().int(), data: z.string() }) },
  /** The controller changed the terminal size. */
  'pty.resized': { capability: 'pty', schema: z.object({ session_id: z.string(), cols: z.number().int(), rows: z.number().int() }) },
  /** The process ended; sent after its last `pty.output`. */
  'pty.exit': { capability: 'pty', schema: ExitInfoSchema.extend({ session_id: z.string() }) },
  /** The approval queue changed (filed, answered, expired): the pending list, oldest first, as much as fits a frame. */
  'approvals.changed': { capability: 'approvals:read', schema: z.object({ pending: z.array(PendingSchema), omitted: z.number().int() }) },
} as const satisfies Record<string, { capability: Capability; schema: z.ZodType }>;

/** A topic name, e.g. `pty.output`. */
export type Topic = keyof typeof EVENT_TOPICS;

/** The payload of `topic`. */
export type EventData<T extends Topic> = z.infer<(typeof EVENT_TOPICS)[T]['schema']>;

/** The `params` of an `event` notification, one member per topic. */
export type WireEvent = { [T in Topic]: { topic: T; data: EventData<T>; seq: number; ts: number } }[Topic];

/** Every topic, in declaration order. */
export const TOPICS = Object.keys(EVENT_TOPICS) as Topic[];

/**
 * Namespaces a pattern may name. `audit` has no topics yet, but clients subscribe to
 * `audit.*` already and must not be refused for it.
 */
export const TOPIC_NAMESPACES = ['pty', 'approvals', 'audit'] as const;

/** True if `name` is a declared topic. */
export function isTopic(name: string): name is Topic {
  return Object.hasOwn(EVENT_TOPICS, name);
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
 * Parses a received event against the registry: for tests and clients written in
 * TypeScript; the server never re-validates what it built itself.
 */
export function parseWireEvent(params: unknown): WireEvent | null {
  if (typeof params !== 'object' || params === null) return null;
  const { topic, data, seq, ts } = params as Record<string, unknown>;
  if (typeof topic !== 'string' || !isTopic(topic) || typeof seq !== 'number' || typeof ts !== 'number') return null;
  const parsed = EVENT_TOPICS[topic].schema.safeParse(data);
  return parsed.success ? ({ topic, data: parsed.data, seq, ts } as WireEvent) : null;
}
