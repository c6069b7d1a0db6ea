// A short-lived `codex app-server` spoken to over stdio (JSON-RPC, one message per line): the
// interface Codex's own clients use to read its hooks and write its config. Gatehouse uses it
// to trust the session's hooks exactly the way Codex's hook review does.
import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { JsonRpcPeer } from '../../protocol/json-rpc-peer.js';
import { findOnPath, isExecutableFile } from '../../runtime/find-on-path.js';

/** A whole exchange (start, a few calls) takes ~0.2 s; this bounds a stuck server. */
const CALL_TIMEOUT_MS = 15_000;
/** How long a closed server has to exit on SIGTERM before it is killed: it holds nothing to save. */
const CLOSE_GRACE_MS = 2_000;

/** Where to find Codex: `$GATEHOUSE_CODEX_BIN` (absolute), else `codex` on PATH; null when neither is there. */
export function findCodexBinary(env: NodeJS.ProcessEnv = process.env): string | null {
  const configured = env['GATEHOUSE_CODEX_BIN'];
  if (configured !== undefined && configured !== '') return isAbsolute(configured) && isExecutableFile(configured) ? configured : null;
  return findOnPath('codex', env);
}

/** Who the messages say did not answer or refused. */
const REMOTE = 'codex app-server';

/**
 * One `codex app-server` process, initialised and ready for calls.
 * @example const s = await CodexAppServer.start(bin); const hooks = await s.call('hooks/list', { cwds: [dir] }); await s.close();
 */
export class CodexAppServer {
  readonly #child: ChildProcess;
  readonly #peer: JsonRpcPeer;
  #buffer = '';
  #stderr = '';

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.#peer = new JsonRpcPeer({ remote: REMOTE, send: (frame) => child.stdin?.write(`${frame}\n`), timeoutMs: CALL_TIMEOUT_MS, omitVersion: true });
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.#read(chunk));
    child.stderr?.setEncoding('utf8');
    // Only the tail is kept, for an error message.
    child.stderr?.on('data', (chunk: string) => (this.#stderr = (this.#stderr + chunk).slice(-2000)));
    child.on('error', (err) => this.#peer.close(`cannot run ${REMOTE}: ${err.message}`));
    // A server that failed to start or died closes its stdin; the exit or error above says why.
    child.stdin?.on('error', () => {});
    child.on('exit', (code, signal) => this.#peer.close(`${REMOTE} exited (${signal ?? code})${this.#stderr.trim() === '' ? '' : `: ${lastLine(this.#stderr)}`}`));
  }

  /** Starts the server with the caller's environment (so `CODEX_HOME` is the agent's) and initialises it. */
  static async start(bin: string, env: NodeJS.ProcessEnv = process.env): Promise<CodexAppServer> {
    const child = spawn(bin, ['app-server'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const server = new CodexAppServer(child);
    try {
      await server.call('initialize', { clientInfo: { name: 'gatehouse', title: 'Gatehouse', version: '1' }, capabilities: null });
      server.#peer.notify('initialized');
    } catch (err) {
      await server.close();
      throw err;
    }
    return server;
  }

  /** Calls `method`; rejects with the server's error (a JsonRpcError), or when it dies or does not answer. */
  call<T>(method: string, params: unknown): Promise<T> {
    return this.#peer.request<T>(method, params);
  }

  /**
   * Ends the server (it holds no state worth a graceful stop) and resolves once the process has
   * exited, so nothing it still writes lands in a folder the caller removes next. SIGKILL after
   * {@link CLOSE_GRACE_MS}.
   */
  close(): Promise<void> {
    this.#peer.close(`${REMOTE} closed`);
    const child = this.#child;
    // Gone already, or never started (no pid: the spawn failed and no exit will come).
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), CLOSE_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.stdin?.end();
      child.kill('SIGTERM');
    });
  }

  #read(chunk: string): void {
    this.#buffer += chunk;
    let nl: number;
    while ((nl = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      this.#peer.receive(line);
    }
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}
