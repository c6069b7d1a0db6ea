// A scripted stand-in for the OpenAI chat-completions API on loopback (what Qwen Code and
// other OpenAI-compatible agents speak), driven by the same `say`/`tool` turns as the
// Messages stub, recording every request for the test to read back.
//
// Observed with Qwen Code 0.24.4 in `-p --yolo --output-format stream-json` mode: one
// streamed `POST /v1/chat/completions` per turn, carrying the tool list; a refused tool
// call comes back as a `role: "tool"` message whose content holds the hook's reason.
import type { ServerResponse } from 'node:http';
import type { Turn } from './messages-api.js';
import { startScriptedServer, type StubRequest, type StubScript } from './scripted-server.js';

/** One chat request the stub received. */
export type ChatRequest = StubRequest<{ messages?: { role: string; content?: unknown; tool_call_id?: string }[]; tools?: unknown[]; stream?: boolean; model?: string }>;

/** What the model answers, turn by turn. */
export type ChatScript = StubScript<NonNullable<ChatRequest['body']>>;

export interface ChatStubOptions {
  /**
   * Whether a request is a turn of the main conversation (answered from the script);
   * others (an agent's side calls, e.g. Qwen Code's memory extraction) get a short text.
   */
  isTurn?: (req: ChatRequest) => boolean;
}

/** A running stub; `close` it when done. */
export interface ChatStub {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** The main-conversation requests, in order; `turns[i]` is what the script answered with turn i. */
  turns: ChatRequest[];
  /** Requests answered outside the script. */
  side: ChatRequest[];
  /** Script mistakes (exhausted, threw); a test should expect this to be empty. */
  problems: string[];
  close(): Promise<void>;
}

/** Text of every message with `role` in a request, in order. */
export function messagesOf(req: ChatRequest | undefined, role: string): string[] {
  return (req?.body?.messages ?? []).filter((m) => m.role === role).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')));
}

function chunks(t: Turn, n: number, model: string): object[] {
  const base = { id: `chatcmpl-stub-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const text = t.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  const calls = t.flatMap((b, i) => (b.type === 'tool_use' ? [{ index: i, id: `call_stub_${n}_${i}`, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } }] : []));
  const delta: Record<string, unknown> = { role: 'assistant' };
  if (text !== '') delta['content'] = text;
  if (calls.length > 0) delta['tool_calls'] = calls;
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  return [
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }], usage },
  ];
}

function answer(res: ServerResponse, t: Turn, n: number, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const c of chunks(t, n, model)) res.write(`data: ${JSON.stringify(c)}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** Starts the stub on 127.0.0.1 at a free port. */
export async function startChatStub(script: ChatScript, options: ChatStubOptions = {}): Promise<ChatStub> {
  const s = await startScriptedServer<NonNullable<ChatRequest['body']>>({
    accepts: (method, path) => method === 'POST' && path.startsWith('/v1/chat/completions'),
    script,
    ...(options.isTurn ? { isTurn: options.isTurn } : {}),
    respond: (res, t, n, req) => answer(res, t, n, req.body?.model ?? 'stub'),
  });
  return { url: `http://127.0.0.1:${s.port}/v1`, turns: s.turns, side: s.side, problems: s.problems, close: s.close };
}
