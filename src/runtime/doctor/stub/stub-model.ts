// A scripted stand-in for the Anthropic Messages API on loopback, so end-to-end tests can
// drive the real Claude Code binary offline and read back everything it sent the model.
//
// Observed with Claude Code 2.1.328 in `-p --output-format stream-json --verbose` mode:
// - With CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 the only traffic to ANTHROPIC_BASE_URL is
//   `POST /v1/messages?beta=true`, streamed, one per conversation turn, each carrying the
//   tool list (12 tools). Without it Claude Code also sends `HEAD /api/hello` here and tries
//   api.anthropic.com directly (MCP registry, telemetry), which fails harmlessly offline.
//   No title generation, quota probe or count_tokens was seen; they are answered anyway.
// - Side requests: a `type: "prompt"` hook asks the same model over the same endpoint with
//   no `tools` and `output_config.format` = a JSON schema `{ok, reason}`. A request without
//   tools is therefore a side request; it is answered (see `side`) without using the script
//   (so a run with `--tools ""` would have no script turns at all).
//   A prompt hook that gets no parsable verdict lets the action go ahead ("A hook gave no
//   usable answer, so it didn't check this action."); one answering `{"ok": false, …}`
//   refuses the tool and then ends the whole run (result `terminal_reason: "hook_stopped"`),
//   unlike an exit-2 command hook, after which the model gets another turn.
// - `messages` may hold `role: "system"` entries mid-conversation (the environment block).
// - Permissions: the default mode refuses Write in `-p` ("Claude requested permissions to
//   write to <path>, but you haven't granted it yet."). `bypassPermissions` exits 1 as root
//   ("--dangerously-skip-permissions cannot be used with root/sudo privileges for security
//   reasons") unless IS_SANDBOX=1; `acceptEdits` also allows Write and Bash redirects.
// - Without CLAUDE_CODE_TMPDIR it leaves /tmp/claude-<uid>/ and /tmp/cc-socks/<pid>.sock.
// - What the model sees on a hook block (exit 2, reason on stderr):
//   PreToolUse → tool_result `is_error: true`, content
//   `PreToolUse:Write hook error: [<hook command>]: <stderr>`; the tool does not run.
//   Stop → a new user message `Stop hook feedback:\n[<hook command>]: <stderr>` and another
//   turn; the next Stop hook gets `stop_hook_active: true`.
// - Timing: a whole run (spawn → exit, two or three turns, hooks included) takes 0.7–1.5 s.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessagesRequest, messageJson, say, streamEvents, type MessageIds, type Turn } from './messages-api.js';

/** One HTTP request the stub received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw request body. */
  raw: string;
  /** The parsed body when it is a Messages API request, else undefined. */
  body: MessagesRequest | undefined;
  /** `turn`: a main-conversation request that used the script; `side`: a tool-less model call; `other`: any other endpoint. */
  kind: 'turn' | 'side' | 'other';
}

/** What the model answers, turn by turn: a list, or a function of the request and the turn's index. */
export type Script = readonly Turn[] | ((req: RecordedRequest, index: number) => Turn);

export interface StubModelOptions {
  /** The answer to side requests (prompt hooks and the like); by default a short text. */
  side?: (req: RecordedRequest) => Turn;
}

/** A running stub; `close` it when done. */
export interface StubModel {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Only the main-conversation requests, in order; `turns[i]` is what the script answered with turn i. */
  readonly turns: RecordedRequest[];
  /** Script mistakes (exhausted, threw); a test should expect this to be empty. */
  problems: string[];
  close(): Promise<void>;
}

function isMessagesEndpoint(method: string, path: string): boolean {
  return method === 'POST' && /^\/v1\/messages(\?|$)/.test(path);
}

function nextTurn(script: Script, req: RecordedRequest, index: number, problems: string[]): Turn {
  try {
    if (typeof script === 'function') return script(req, index);
    const t = script[index];
    if (t !== undefined) return t;
    problems.push(`script exhausted: request ${index + 1} but only ${script.length} turns`);
  } catch (err) {
    problems.push(`script threw on turn ${index}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Ending the turn lets Claude Code exit at once; an HTTP error would make it retry for minutes.
  return say(`[stub-model] ${problems.at(-1) ?? 'no answer'}`);
}

function answer(res: ServerResponse, t: Turn, body: MessagesRequest, ids: MessageIds): void {
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(messageJson(t, body.model, ids)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of streamEvents(t, body.model, ids)) res.write(event);
  res.end();
}

function answerOther(res: ServerResponse, req: RecordedRequest): void {
  if (req.method === 'HEAD') {
    res.writeHead(200).end();
    return;
  }
  // count_tokens wants a number; anything else gets an empty object.
  const payload = req.path.startsWith('/v1/messages/count_tokens') ? { input_tokens: 1 } : {};
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

/**
 * Starts a stub model on 127.0.0.1 at a free port.
 *
 * @example
 * const stub = await startStubModel([tool('Write', { file_path, content: 'hi' }), say('done')]);
 * // … runClaude({ model: stub, … }) …
 * await stub.close();
 */
export async function startStubModel(script: Script, options: StubModelOptions = {}): Promise<StubModel> {
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  let messages = 0;

  const server = createServer((incoming, res) => {
    const parts: Buffer[] = [];
    incoming.on('data', (c: Buffer) => parts.push(c));
    incoming.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      const method = incoming.method ?? 'GET';
      const path = incoming.url ?? '/';
      let json: unknown;
      try {
        json = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const parsed = isMessagesEndpoint(method, path) ? MessagesRequest.safeParse(json) : undefined;
      const body = parsed?.success === true ? parsed.data : undefined;
      const kind = body === undefined ? 'other' : (body.tools?.length ?? 0) > 0 ? 'turn' : 'side';
      const req: RecordedRequest = { method, path, headers: incoming.headers, raw, body, kind };
      const turnIndex = requests.filter((r) => r.kind === 'turn').length;
      requests.push(req);
      if (body === undefined) {
        answerOther(res, req);
        return;
      }
      const n = messages++;
      const ids: MessageIds = { messageId: `msg_stub_${n}`, toolUseId: (i) => `toolu_stub_${n}_${i}` };
      const t = kind === 'turn' ? nextTurn(script, req, turnIndex, problems) : (options.side ?? (() => say('OK')))(req);
      answer(res, t, body, ids);
    });
    // A killed client leaves a half-written response; nothing to do about it.
    res.on('error', () => {});
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get turns() {
      return requests.filter((r) => r.kind === 'turn');
    },
    problems,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Claude Code keeps connections alive; drop them so close() returns now.
        server.closeAllConnections();
      }),
  };
}
