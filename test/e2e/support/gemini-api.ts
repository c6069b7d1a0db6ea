// A scripted stand-in for the Gemini API on loopback (`streamGenerateContent?alt=sse`), for
// driving the real Gemini CLI offline with the same `say`/`tool` turns as the other stubs.
//
// Observed with Gemini CLI 0.61.0 (`-p --yolo -m gemini-2.5-pro --output-format stream-json`):
// one streamed `POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse` per turn;
// a refused tool call comes back to the model as a `functionResponse` whose output reads
// `Tool execution blocked: <reason>`; exit 2 at AfterAgent makes the agent retry with the reason.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Turn } from './messages-api.js';

/** One model request the stub received (the parsed body). */
export interface GeminiRequest {
  path: string;
  body: { contents?: { role?: string; parts?: Record<string, unknown>[] }[] } | undefined;
}

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
  const turns: GeminiRequest[] = [];
  const problems: string[] = [];
  const server = createServer((incoming, res) => {
    const parts: Buffer[] = [];
    incoming.on('data', (c: Buffer) => parts.push(c));
    incoming.on('end', () => {
      const path = incoming.url ?? '/';
      if (incoming.method !== 'POST' || !path.includes(':streamGenerateContent')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      let body: GeminiRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as GeminiRequest['body'];
      } catch {
        body = undefined;
      }
      const req: GeminiRequest = { path, body };
      const index = turns.length;
      turns.push(req);
      let t: Turn;
      try {
        t = script(req, index);
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
        t = [{ type: 'text', text: `[stub-model] ${problems.at(-1)}` }];
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${JSON.stringify(chunk(t))}\r\n\r\n`);
    });
    res.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, turns, problems, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
