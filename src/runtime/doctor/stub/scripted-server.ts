// The loop every scripted model stub shares: collect and parse a request, answer a
// side request outside the script, else the script's next turn (recording mistakes as
// problems and answering them as text, so the agent ends instead of retrying).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Turn } from './messages-api.js';

/** A request as a stub records it: path and parsed JSON body (undefined if not JSON). */
export interface StubRequest<B> {
  path: string;
  body: B | undefined;
}

/** The turns of a script: a list, or a function of the request and the turn's index. */
export type StubScript<B> = readonly Turn[] | ((req: StubRequest<B>, index: number) => Turn);

export interface ScriptedServerSpec<B> {
  /** True for the model endpoint this stub speaks (others get 404). */
  accepts(method: string, path: string): boolean;
  script: StubScript<B>;
  /** Main-conversation requests use the script; others are answered with a short text. */
  isTurn?: (req: StubRequest<B>) => boolean;
  /** Writes one turn in the API's streaming format; `n` numbers the answers. */
  respond(res: ServerResponse, turn: Turn, n: number, req: StubRequest<B>): void;
}

export interface ScriptedServer<B> {
  port: number;
  turns: StubRequest<B>[];
  side: StubRequest<B>[];
  problems: string[];
  close(): Promise<void>;
}

function nextTurn<B>(script: StubScript<B>, req: StubRequest<B>, index: number): Turn {
  const next = typeof script === 'function' ? script(req, index) : script[index];
  if (next === undefined) throw new Error(`script exhausted: request ${index + 1} but only ${(script as readonly Turn[]).length} turns`);
  return next;
}

/** Starts a scripted stub on 127.0.0.1 at a free port. */
export async function startScriptedServer<B>(spec: ScriptedServerSpec<B>): Promise<ScriptedServer<B>> {
  const turns: StubRequest<B>[] = [];
  const side: StubRequest<B>[] = [];
  const problems: string[] = [];
  const server = createServer((incoming, res) => {
    const parts: Buffer[] = [];
    incoming.on('data', (c: Buffer) => parts.push(c));
    incoming.on('end', () => {
      const path = incoming.url ?? '/';
      if (!spec.accepts(incoming.method ?? 'GET', path)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      let body: B | undefined;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as B;
      } catch {
        body = undefined;
      }
      const req: StubRequest<B> = { path, body };
      if (spec.isTurn !== undefined && !spec.isTurn(req)) {
        side.push(req);
        spec.respond(res, [{ type: 'text', text: 'OK' }], turns.length + side.length, req);
        return;
      }
      const index = turns.length;
      turns.push(req);
      let t: Turn;
      try {
        t = nextTurn(spec.script, req, index);
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
        t = [{ type: 'text', text: `[stub-model] ${problems.at(-1)}` }];
      }
      spec.respond(res, t, index, req);
    });
    // A killed client leaves a half-written response; nothing to do about it.
    res.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, turns, side, problems, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
