// The binary form of a `pty.output` event, for clients that ask for it: the same event as
// the JSON notification, with the output bytes raw after a short JSON header instead of base64.

/**
 * How a connection wants `pty.output`: `base64` (the default, every frame JSON text) or
 * `binary` (binary WebSocket messages in the layout below). `events.subscribe {output}` sets it.
 */
export const OUTPUT_ENCODINGS = ['base64', 'binary'] as const;
export type OutputEncoding = (typeof OUTPUT_ENCODINGS)[number];

/**
 * First byte of a binary message from the gateway: a `pty.output` event. The gateway sends no
 * other binary message; a client ignores a kind it does not know, so others can be added.
 */
export const BINARY_OUTPUT_KIND = 0x01;

/** Bytes before the header: the kind, then the header's length as an unsigned 16-bit big-endian number. */
export const BINARY_OUTPUT_PREFIX_BYTES = 3;

/**
 * A binary `pty.output` message, byte by byte:
 *
 *     0      kind = 0x01
 *     1..2   n, the header's length (u16, big-endian)
 *     3..    the header, n bytes of UTF-8 JSON: the event's params without the bytes,
 *            {"topic":"pty.output","data":{"session_id":"…","seq":7},"seq":42,"ts":1700000000000}
 *     3+n..  the output bytes, as the PTY wrote them (a UTF-8 sequence may be split across chunks)
 *
 * `data.seq` is the chunk's seq and `seq` the connection's event counter, exactly as in the
 * JSON form; a chunk larger than one message arrives as several with the same `data.seq`.
 */
export interface BinaryOutputEvent {
  topic: 'pty.output';
  data: { session_id: string; seq: number; data: Uint8Array };
  seq: number;
  ts: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads a binary message; null when it is not a well-formed `pty.output` (an unknown kind,
 * a short frame, a header that is not the event's). The bytes are a view into `frame`, not a copy.
 * @example decodeBinaryOutput(new Uint8Array(await blob.arrayBuffer()))?.data.data
 */
export function decodeBinaryOutput(frame: Uint8Array): BinaryOutputEvent | null {
  if (frame.length < BINARY_OUTPUT_PREFIX_BYTES || frame[0] !== BINARY_OUTPUT_KIND) return null;
  const headerBytes = ((frame[1] as number) << 8) | (frame[2] as number);
  const start = BINARY_OUTPUT_PREFIX_BYTES + headerBytes;
  if (start > frame.length) return null;
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(frame.subarray(BINARY_OUTPUT_PREFIX_BYTES, start)));
  } catch {
    return null;
  }
  if (!isRecord(header) || header.topic !== 'pty.output' || typeof header.seq !== 'number' || typeof header.ts !== 'number') return null;
  const d = header.data;
  if (!isRecord(d) || typeof d.session_id !== 'string' || typeof d.seq !== 'number') return null;
  return { topic: 'pty.output', data: { session_id: d.session_id, seq: d.seq, data: frame.subarray(start) }, seq: header.seq, ts: header.ts };
}
