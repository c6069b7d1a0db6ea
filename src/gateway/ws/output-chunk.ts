// One PTY output chunk on its way to the connections watching it: its JSON payloads (base64)
// and its binary parts are each built at most once, however many connections want them.
import { BINARY_OUTPUT_CHUNK_BYTES, binaryOutputFrame, binaryOutputHead, outputPayloads } from './frames.js';

/**
 * A chunk fanned out to several connections in the encodings they asked for.
 * @example const chunk = new OutputChunk(id, seq, data); conn.sendOutput(chunk, false)
 */
export class OutputChunk {
  #payloads: string[] | null = null;
  #parts: Buffer[] | null = null;
  #head: string | null = null;

  constructor(
    readonly sessionId: string,
    readonly seq: number,
    readonly data: Buffer,
  ) {}

  /** The serialised `pty.output` payloads for JSON connections, one per text frame. */
  payloads(): readonly string[] {
    this.#payloads ??= outputPayloads(this.sessionId, this.seq, this.data);
    return this.#payloads;
  }

  /** The binary messages for one connection, numbered by its event counter (`nextSeq`). */
  binaryFrames(nextSeq: () => number, ts: number): Buffer[] {
    this.#head ??= binaryOutputHead(this.sessionId, this.seq);
    this.#parts ??= split(this.data);
    const head = this.#head;
    return this.#parts.map((part) => binaryOutputFrame(head, nextSeq(), ts, part));
  }
}

/** Views of at most {@link BINARY_OUTPUT_CHUNK_BYTES} each (no copies); none for an empty chunk. */
function split(data: Buffer): Buffer[] {
  if (data.length <= BINARY_OUTPUT_CHUNK_BYTES) return data.length === 0 ? [] : [data];
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += BINARY_OUTPUT_CHUNK_BYTES) parts.push(data.subarray(at, at + BINARY_OUTPUT_CHUNK_BYTES));
  return parts;
}
