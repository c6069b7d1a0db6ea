// A scripted stand-in for the Gemini API on loopback (`streamGenerateContent?alt=sse`), for
// driving the real Gemini CLI offline with the same `say`/`tool` turns as the other stubs.
//
// Observed with Gemini CLI 0.61.0 (`-p --yolo -m gemini-2.5-pro --output-format stream-json`):
// one streamed `POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse` per turn;
// a refused tool call comes back to the model as a `functionResponse` whose output reads
// `Tool execution blocked: <reason>`; exit 2 at AfterAgent makes the agent retry with the reason.
import type { Turn } from './messages-api.js';
import { startScriptedServer, type StubRequest } from './scripted-server.js';

/** One model request the stub received (the parsed body). */
export type GeminiRequest = StubRequest<{ contents?: { role?: string; parts?: Record<string, unknown>[] }[] }>;

export type GeminiScript = (req: GeminiRequest, index: number) => Turn;

export interface GeminiStub {
  /** For GOOGLE_GEMINI_BASE_URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  turns: GeminiRequest[];
  problems: string[];
  close(): Promise<void>;
}

/** Everything the model was sent in a request, as text (to look for reasons). */
export function sentText(req: GeminiRequest | undefined): string {
  return JSON.stringify(req?.body?.contents ?? []);
}

function chunk(t: Turn): object {
  const parts = t.map((b) => (b.type === 'text' ? { text: b.text } : { functionCall: { name: b.name, args: b.input } }));
  return { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } };
}

/** Starts the stub on 127.0.0.1 at a free port. */
export async function startGeminiStub(script: GeminiScript): Promise<GeminiStub> {
  const s = await startScriptedServer<NonNullable<GeminiRequest['body']>>({
    accepts: (method, path) => method === 'POST' && path.includes(':streamGenerateContent'),
    script,
    respond: (res, t) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${JSON.stringify(chunk(t))}\r\n\r\n`);
    },
  });
  return { url: `http://127.0.0.1:${s.port}`, turns: s.turns, problems: s.problems, close: s.close };
}
