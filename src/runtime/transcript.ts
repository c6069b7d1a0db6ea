// Reads what the turn-level verifiers need from an agent's transcript file, touching as
// little of it as possible: transcripts run to megabytes, and a Stop pays for every one.
import { readFileSync } from 'node:fs';
import { todosFromLines, TODO_TOOL_NAME, type ExecItem } from '../core/turn/index.js';

/** The newest bytes of a transcript read at most: more than any turn's worth of lines. */
export const MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024;

/**
 * The lines holding `TodoWrite`, newest first, found in the raw bytes: only those lines
 * are decoded (decoding a multi-megabyte transcript with any non-ASCII text in it costs
 * more than everything else a Stop does).
 */
function* todoLines(bytes: Buffer): Generator<string> {
  let from = bytes.length - 1;
  while (from >= 0) {
    const at = bytes.lastIndexOf(TODO_TOOL_NAME, from);
    if (at < 0) return;
    const start = bytes.lastIndexOf(0x0a, at) + 1;
    const newline = bytes.indexOf(0x0a, at);
    yield bytes.toString('utf8', start, newline < 0 ? bytes.length : newline);
    from = start - 2;
  }
}

/** The agent's current todo list from its transcript; null when there is none or the file cannot be read. */
export function readTranscriptTodos(path: string | null): ExecItem[] | null {
  if (!path) return null;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  return todosFromLines(todoLines(bytes.length > MAX_TRANSCRIPT_BYTES ? bytes.subarray(bytes.length - MAX_TRANSCRIPT_BYTES) : bytes));
}
