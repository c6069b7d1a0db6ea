// JSON-RPC 2.0 frames as text: responses, errors and event notifications, each at most
// one frame cap long, with PTY output split so its base64 never pushes a frame over; and
// the binary form of PTY output (protocol/binary-output.ts) for clients that ask for it.
import { BINARY_OUTPUT_KIND, BINARY_OUTPUT_PREFIX_BYTES } from '../../protocol/binary-output.js';
import type { RpcError } from './errors.js';
import type { Topic } from './events.js';

/**
 * Largest frame either side sends: one browser `message` event stays small enough to
 * parse without a jank-visible pause, and no single frame monopolises the socket.
 */
export const MAX_FRAME_BYTES = 64 * 1024;

/**
 * Largest incoming frame `ws` reads at all (its `maxPayload`; beyond it the socket is
 * closed with 1009). Above {@link MAX_FRAME_BYTES} so that a client slightly over the cap
 * gets a readable `frame_too_large` error instead of a dropped connection, and small enough
 * that 128 connections each sending one cannot take more than 32 MiB.
 */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/**
 * Room left in an output frame for everything but the base64: the envelope is ~120 bytes
 * plus the session id (JSON-escaped) and three numbers; 1 KiB covers any id the manager makes.
 */
const ENVELOPE_RESERVE_BYTES = 1024;

/** Raw output bytes per `pty.output` event: base64 turns 3 bytes into 4 characters. */
export const OUTPUT_CHUNK_BYTES = Math.floor((MAX_FRAME_BYTES - ENVELOPE_RESERVE_BYTES) / 4) * 3;

/** Raw output bytes per binary `pty.output` message: the frame minus its prefix and JSON header. */
export const BINARY_OUTPUT_CHUNK_BYTES = MAX_FRAME_BYTES - ENVELOPE_RESERVE_BYTES;

/** A JSON-RPC request id: a string or a number (null only in error replies to unreadable requests). */
export type RpcId = string | number | null;

/** Serialises one frame; a frame over the cap is a bug in the caller, never sent. */
function capped(text: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_FRAME_BYTES) throw new Error(`ws frame of ${bytes} bytes exceeds the ${MAX_FRAME_BYTES}-byte cap`);
  return text;
}

/** A success response. */
export function resultFrame(id: RpcId, result: unknown): string {
  return capped(JSON.stringify({ jsonrpc: '2.0', id, result: result ?? null }));
}

/** An error response. */
export function errorFrame(id: RpcId, error: RpcError): string {
  return capped(JSON.stringify({ jsonrpc: '2.0', id, error: error.toJSON() }));
}

/**
 * An `event` notification. `dataJson` is the payload already serialised, so an event fanned
 * out to many connections is serialised once and only the per-connection `seq` differs.
 */
export function eventFrame(topic: Topic, dataJson: string, seq: number, ts: number): string {
  return capped(`{"jsonrpc":"2.0","method":"event","params":{"topic":${JSON.stringify(topic)},"data":${dataJson},"seq":${seq},"ts":${ts}}}`);
}

/** JSON for a string, with everything outside ASCII escaped, so characters are bytes. */
function asciiJson(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A `pty.output` event frame as bytes, built in one buffer: output is the bulk of all
 * traffic, and a string frame would be scanned for its UTF-8 length and encoded again by
 * the socket. `payload` comes from {@link outputPayloads}, which is ASCII.
 */
export function outputFrame(payload: string, seq: number, ts: number): Buffer {
  const head = '{"jsonrpc":"2.0","method":"event","params":{"topic":"pty.output","data":';
  const tail = `,"seq":${seq},"ts":${ts}}}`;
  const frame = Buffer.allocUnsafe(head.length + payload.length + tail.length);
  if (frame.length > MAX_FRAME_BYTES) throw new Error(`ws frame of ${frame.length} bytes exceeds the ${MAX_FRAME_BYTES}-byte cap`);
  let at = frame.write(head, 0, 'latin1');
  at += frame.write(payload, at, 'latin1');
  frame.write(tail, at, 'latin1');
  return frame;
}

/**
 * The start of a binary `pty.output` header, the same for every connection: everything up
 * to the connection's own event seq. ASCII (the session id is escaped).
 */
export function binaryOutputHead(sessionId: string, seq: number): string {
  return `{"topic":"pty.output","data":{"session_id":${asciiJson(sessionId)},"seq":${seq}},"seq":`;
}

/**
 * One binary `pty.output` message: prefix, header (`head` from {@link binaryOutputHead}
 * plus this connection's event seq and the time), then the bytes, in one buffer.
 */
export function binaryOutputFrame(head: string, eventSeq: number, ts: number, bytes: Buffer): Buffer {
  const header = `${head}${eventSeq},"ts":${ts}}`;
  const start = BINARY_OUTPUT_PREFIX_BYTES + header.length;
  const frame = Buffer.allocUnsafe(start + bytes.length);
  if (frame.length > MAX_FRAME_BYTES) throw new Error(`ws frame of ${frame.length} bytes exceeds the ${MAX_FRAME_BYTES}-byte cap`);
  frame[0] = BINARY_OUTPUT_KIND;
  frame.writeUInt16BE(header.length, 1);
  frame.write(header, BINARY_OUTPUT_PREFIX_BYTES, 'latin1');
  bytes.copy(frame, start);
  return frame;
}

/**
 * The serialised payloads of the `pty.output` events for one chunk: one per
 * {@link OUTPUT_CHUNK_BYTES}, all carrying the chunk's `seq`; none for an empty chunk.
 * Pure ASCII (base64, and the session id escaped), so a payload's length is its size.
 */
export function outputPayloads(sessionId: string, seq: number, data: Buffer): string[] {
  const head = `{"session_id":${asciiJson(sessionId)},"seq":${seq},"data":"`;
  const out: string[] = [];
  for (let at = 0; at < data.length; at += OUTPUT_CHUNK_BYTES) {
    out.push(`${head}${data.subarray(at, at + OUTPUT_CHUNK_BYTES).toString('base64')}"}`);
  }
  return out;
}

/**
 * Room for the scrollback in a `pty.attach` response: the frame minus the response's own
 * members (id, seq, geometry, flags), which 1 KiB covers.
 */
const SCROLLBACK_BUDGET_BYTES = MAX_FRAME_BYTES - 1024;

/** Bytes `text` takes inside a JSON string (escapes included, quotes not). */
function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/**
 * The longest tail of a serialised screen, cut at a line start, that fits `budget` bytes
 * as JSON. The screen itself (the last lines and the cursor) survives; only the oldest
 * scrollback lines are left out, and `truncated` says so.
 */
export function fitScrollback(data: string, budget: number = SCROLLBACK_BUDGET_BYTES): { text: string; truncated: boolean } {
  if (jsonBytes(data) <= budget) return { text: data, truncated: false };
  const lines = data.split('\n');
  let used = 0;
  let first = lines.length;
  while (first > 0) {
    const line = lines[first - 1] ?? '';
    const cost = jsonBytes(line) + (first < lines.length ? 2 : 0); // the "\n" joining it to the next line
    if (used + cost > budget) break;
    used += cost;
    first--;
  }
  return { text: lines.slice(first).join('\n'), truncated: true };
}
