// A scripted stand-in for the OpenAI Responses API on loopback (`POST /v1/responses`, streamed),
// for driving the real Codex CLI offline with the same `say`/`tool` turns as the other stubs.
//
// Observed with Codex CLI 0.171.0 (`codex exec --json`): one `POST /v1/responses` per model
// turn, `store: false`, the whole history in `input` every time (no side requests seen). Of the
// stream it needs only `response.output_item.done` per item and a `response.completed` whose
// `response.id` is set (without it, it retries five times and fails the turn); the rest of the
// real API's fields are sent for fidelity. A tool call's result comes back in the next request
// as a `function_call_output` / `custom_tool_call_output` item; a PreToolUse refusal reads
// `Command blocked by PreToolUse hook: <reason>. Command: <command>`, a Stop block arrives as a
// user message `<hook_prompt hook_run_id="…">reason</hook_prompt>`.
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Turn, TurnBlock } from './messages-api.js';
import { startScriptedServer, type StubRequest, type StubScript } from './scripted-server.js';

const InputItem = z.looseObject({ type: z.string().optional() });

/** The request body of POST /v1/responses, as far as the harness reads it. */
const ResponsesBody = z.looseObject({
  model: z.string().optional(),
  input: z.array(InputItem).optional(),
  tools: z.array(z.looseObject({ type: z.string(), name: z.string().optional() })).optional(),
  stream: z.boolean().optional(),
  /** Codex puts its `x-codex-turn-metadata` header (a JSON string) here too. */
  client_metadata: z.record(z.string(), z.unknown()).optional(),
});
type ResponsesBody = z.infer<typeof ResponsesBody>;

/** One Responses request the stub received. */
export type ResponsesRequest = StubRequest<ResponsesBody>;

/**
 * What the model answers, turn by turn. A `tool_use` block named `apply_patch` takes the patch
 * text itself as its input (a string, see {@link addFilePatch}); any other tool takes an object
 * that is sent as the call's JSON `arguments`, e.g. `tool('exec_command', { cmd: 'ls' })`.
 */
export type ResponsesScript = StubScript<ResponsesBody>;

export interface ResponsesStubOptions {
  /** Whether a request is a turn of the main conversation; others get a short text. */
  isTurn?: (req: ResponsesRequest) => boolean;
}

/** A running stub; `close` it when done. */
export interface ResponsesStub {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** The main-conversation requests, in order; `turns[i]` is what the script answered with turn i. */
  turns: ResponsesRequest[];
  /** Requests answered outside the script. */
  side: ResponsesRequest[];
  /** Script mistakes (exhausted, threw, bad apply_patch input); a test should expect this to be empty. */
  problems: string[];
  close(): Promise<void>;
}

/** A tool result the model was sent: which call, which tool, and its output text. */
export interface SentToolOutput {
  callId: string;
  /** The called tool's name (from the matching call item), or '' if the call is not in the input. */
  name: string;
  text: string;
}

/** The text of a patch that adds `path` with `content`, for `tool('apply_patch', addFilePatch(…))`. */
export function addFilePatch(path: string, content: string): string {
  const lines = content.replace(/\n$/, '').split('\n');
  return ['*** Begin Patch', `*** Add File: ${path}`, ...lines.map((l) => `+${l}`), '*** End Patch', ''].join('\n');
}

const CallItem = z.looseObject({ type: z.enum(['function_call', 'custom_tool_call']), call_id: z.string(), name: z.string() });
const OutputItem = z.looseObject({ type: z.enum(['function_call_output', 'custom_tool_call_output']), call_id: z.string(), output: z.unknown() });
const UserMessage = z.looseObject({ type: z.literal('message'), role: z.literal('user'), content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })) });

function inputOf(req: ResponsesRequest | undefined): z.infer<typeof InputItem>[] {
  // The server records bodies unchecked; read them through the schema.
  const body = ResponsesBody.safeParse(req?.body);
  return body.success ? (body.data.input ?? []) : [];
}

/** Every tool output in the request's input (the whole history), oldest first. */
export function toolOutputs(req: ResponsesRequest | undefined): SentToolOutput[] {
  const names = new Map<string, string>();
  for (const item of inputOf(req)) {
    const call = CallItem.safeParse(item);
    if (call.success) names.set(call.data.call_id, call.data.name);
  }
  return inputOf(req).flatMap((item) => {
    const out = OutputItem.safeParse(item);
    if (!out.success) return [];
    const text = typeof out.data.output === 'string' ? out.data.output : JSON.stringify(out.data.output);
    return [{ callId: out.data.call_id, name: names.get(out.data.call_id) ?? '', text }];
  });
}

/** The reasons Stop hooks sent back, oldest first (the text inside Codex's `<hook_prompt>` messages). */
export function hookPrompts(req: ResponsesRequest | undefined): string[] {
  return inputOf(req).flatMap((item) => {
    const msg = UserMessage.safeParse(item);
    if (!msg.success) return [];
    return msg.data.content.flatMap((c) => [...(c.text ?? '').matchAll(/<hook_prompt[^>]*>([\s\S]*?)<\/hook_prompt>/g)].map((m) => m[1] ?? ''));
  });
}

/** Everything the model was sent in a request, as text (to look for reasons). */
export function sentText(req: ResponsesRequest | undefined): string {
  return JSON.stringify(inputOf(req));
}

function outputItem(block: TurnBlock, id: string): Record<string, unknown> {
  if (block.type === 'text') return { type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: block.text, annotations: [] }] };
  const call_id = `call_${id}`;
  if (block.name === 'apply_patch') {
    if (typeof block.input !== 'string') throw new Error(`apply_patch input must be the patch text (a string), got ${JSON.stringify(block.input)}`);
    return { type: 'custom_tool_call', id: `ctc_${id}`, status: 'completed', call_id, name: 'apply_patch', input: block.input };
  }
  return { type: 'function_call', id: `fc_${id}`, status: 'completed', call_id, name: block.name, arguments: JSON.stringify(block.input ?? {}) };
}

/** The server-sent events of one streamed response, in the order the real API sends them. */
function responseEvents(t: Turn, n: number, model: string): string[] {
  const items = t.map((block, i) => outputItem(block, `stub_${n}_${i}`));
  const response = { id: `resp_stub_${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model, output: [] as unknown[] };
  const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };
  const data = [
    { type: 'response.created', response: { ...response, status: 'in_progress' } },
    ...items.map((item, output_index) => ({ type: 'response.output_item.done', output_index, item })),
    { type: 'response.completed', response: { ...response, status: 'completed', output: items, usage } },
  ];
  return data.map((d, sequence_number) => `event: ${d.type}\ndata: ${JSON.stringify({ ...d, sequence_number })}\n\n`);
}

function answer(res: ServerResponse, t: Turn, n: number, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(responseEvents(t, n, model).join(''));
}

/** Checks every turn while it is picked, so a bad one becomes a problem rather than a crash. */
function checked(script: ResponsesScript): (req: ResponsesRequest, index: number) => Turn {
  return (req, index) => {
    const t = typeof script === 'function' ? script(req, index) : script[index];
    if (t === undefined) throw new Error(`script exhausted: request ${index + 1} but only ${(script as readonly Turn[]).length} turns`);
    t.forEach((block, i) => outputItem(block, `check_${i}`));
    return t;
  };
}

/**
 * Starts the stub on 127.0.0.1 at a free port.
 *
 * @example
 * const stub = await startResponsesStub([tool('exec_command', { cmd: 'ls' }), say('done')]);
 * try { await runCodex({ cwd, prompt: 'go', home: makeCodexHome(dir, stub.url) }); } finally { await stub.close(); }
 */
export async function startResponsesStub(script: ResponsesScript, options: ResponsesStubOptions = {}): Promise<ResponsesStub> {
  const s = await startScriptedServer<ResponsesBody>({
    accepts: (method, path) => method === 'POST' && path.startsWith('/v1/responses'),
    script: checked(script),
    ...(options.isTurn ? { isTurn: options.isTurn } : {}),
    respond: (res, t, n, req) => answer(res, t, n, req.body?.model ?? 'stub'),
  });
  return { url: `http://127.0.0.1:${s.port}/v1`, turns: s.turns, side: s.side, problems: s.problems, close: s.close };
}
