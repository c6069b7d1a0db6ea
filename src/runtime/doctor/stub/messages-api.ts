// The slice of the Anthropic Messages API that the stub model speaks: scripted
// assistant turns (`say`, `tool`), their wire encodings, and readers for what was sent.
import { z } from 'zod';

/** One block of a scripted assistant message. */
export type TurnBlock = { readonly type: 'text'; readonly text: string } | { readonly type: 'tool_use'; readonly name: string; readonly input: unknown };

/** One scripted assistant message; it ends with `tool_use` when it holds a tool call, else `end_turn`. */
export type Turn = readonly TurnBlock[];

/** A turn in which the model says `text`, e.g. `say('done')`. */
export function say(text: string): Turn {
  return [{ type: 'text', text }];
}

/** A turn in which the model calls a tool, e.g. `tool('Write', { file_path, content })`. */
export function tool(name: string, input: unknown): Turn {
  return [{ type: 'tool_use', name, input }];
}

const ContentBlock = z.looseObject({ type: z.string() });

const Message = z.looseObject({
  // Claude Code 2.1.328 also sends mid-conversation `system` messages.
  role: z.string(),
  content: z.union([z.string(), z.array(ContentBlock)]),
});

/** The request body of POST /v1/messages, as far as the harness reads it. */
export const MessagesRequest = z.looseObject({
  model: z.string(),
  messages: z.array(Message),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** A tool_result the model was sent, with its content flattened to text. */
export interface SentToolResult {
  toolUseId: string;
  isError: boolean;
  text: string;
}

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  is_error: z.boolean().optional(),
  content: z.union([z.string(), z.array(ContentBlock)]).optional(),
});

function lastUserContent(body: MessagesRequest | undefined): z.infer<typeof ContentBlock>[] {
  const last = body?.messages.filter((m) => m.role === 'user').at(-1);
  if (last === undefined) return [];
  return typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
}

function textOf(blocks: z.infer<typeof ContentBlock>[]): string[] {
  return blocks.flatMap((b) => {
    const text = TextBlock.safeParse(b);
    return text.success ? [text.data.text] : [];
  });
}

/** The tool_result blocks of the last user message, e.g. what a PreToolUse block told the model. */
export function toolResults(body: MessagesRequest | undefined): SentToolResult[] {
  return lastUserContent(body).flatMap((b) => {
    const r = ToolResultBlock.safeParse(b);
    if (!r.success) return [];
    const content = r.data.content ?? '';
    const text = typeof content === 'string' ? content : textOf(content).join('\n');
    return [{ toolUseId: r.data.tool_use_id, isError: r.data.is_error === true, text }];
  });
}

/** The text blocks of the last user message joined by newlines, e.g. Stop hook feedback. */
export function lastUserText(body: MessagesRequest | undefined): string {
  return textOf(lastUserContent(body)).join('\n');
}

/** Splits deltas so Claude Code has to reassemble them, as it must with the real API. */
const DELTA_CHUNK_CHARS = 24;

function chunks(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += DELTA_CHUNK_CHARS) out.push(s.slice(i, i + DELTA_CHUNK_CHARS));
  return out.length > 0 ? out : [''];
}

/** Ids for one encoded message: its own and one per tool call, unique within a stub. */
export interface MessageIds {
  messageId: string;
  toolUseId: (blockIndex: number) => string;
}

function stopReason(t: Turn): 'tool_use' | 'end_turn' {
  return t.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The server-sent events of a streamed reply, in the order the real API sends them. */
export function streamEvents(t: Turn, model: string, ids: MessageIds): string[] {
  const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const events = [
    sse('message_start', {
      message: { id: ids.messageId, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
    }),
    sse('ping', {}),
  ];
  t.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of chunks(block.text)) events.push(sse('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    } else {
      const content_block = { type: 'tool_use', id: ids.toolUseId(index), name: block.name, input: {} };
      events.push(sse('content_block_start', { index, content_block }));
      for (const partial_json of chunks(JSON.stringify(block.input ?? {}))) {
        events.push(sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
      }
    }
    events.push(sse('content_block_stop', { index }));
  });
  events.push(sse('message_delta', { delta: { stop_reason: stopReason(t), stop_sequence: null }, usage: { output_tokens: 1 } }));
  events.push(sse('message_stop', {}));
  return events;
}

/** The JSON body of a non-streamed reply. */
export function messageJson(t: Turn, model: string, ids: MessageIds): Record<string, unknown> {
  const content = t.map((block, index) => (block.type === 'text' ? block : { type: 'tool_use', id: ids.toolUseId(index), name: block.name, input: block.input ?? {} }));
  return {
    id: ids.messageId,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(t),
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}
