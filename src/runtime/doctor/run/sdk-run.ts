// Runs one `query()` of the Claude Agent SDK in this process, with Gatehouse's in-process hooks,
// against the stub Messages API: the SDK as installed (the current project's, else the pinned one
// in the agent cache) driving the Claude Code binary, which it spawns through us so doctor can
// end its process group on Ctrl-C.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentProcessRun, RunnerOptions } from './agent-process.js';
import { claudeStubEnv } from './claude-run.js';
import { testedAgent } from '../tested-agents.js';

const SDK_PACKAGE = '@anthropic-ai/claude-agent-sdk';

/** The slice of the SDK doctor uses. */
interface Sdk {
  query(args: { prompt: string; options: Record<string, unknown> }): AsyncIterable<{ type: string; subtype?: string; result?: string }>;
}

/** The SDK's entry module: resolved from `cwd` (the user's project) when given, else the pinned one in the agent cache; null when neither. */
export function sdkEntry(cwd: string | null, cache: string | null): { path: string; from: 'project' | 'cache' } | null {
  if (cwd !== null) {
    try {
      return { path: createRequire(join(cwd, 'noop.js')).resolve(SDK_PACKAGE), from: 'project' };
    } catch {
      // Not installed in this project.
    }
  }
  const pinned = testedAgent('claude-sdk');
  if (cache === null || pinned === undefined) return null;
  const path = join(cache, `${pinned.name}@${pinned.version}`, 'node_modules', SDK_PACKAGE, 'sdk.mjs');
  return existsSync(path) ? { path, from: 'cache' } : null;
}

/** The version in the package.json beside the SDK's entry module, or null. */
export function sdkVersion(entry: string): string | null {
  for (let dir = dirname(entry), i = 0; i < 3; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === SDK_PACKAGE && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No package.json here: look one folder up.
    }
  }
  return null;
}

/** Runs one `query()` with `hooks` and waits for its end (aborting it after `timeoutMs`). */
export async function runSdk(
  opts: RunnerOptions & { entry: string; cwd: string; prompt: string; model: { url: string }; claudeBin: string; hooks: unknown; timeoutMs: number },
): Promise<AgentProcessRun> {
  const started = Date.now();
  const sdk = (await import(pathToFileURL(opts.entry).href)) as Sdk;
  const scratch = mkdtempSync(join(opts.scratchParent ?? tmpdir(), 'gh-sdk-'));
  const home = join(scratch, 'home');
  const ccTmp = join(scratch, 'tmp');
  mkdirSync(home, { recursive: true });
  mkdirSync(ccTmp, { mode: 0o700 });
  const env = { ...claudeStubEnv(home, ccTmp, opts.model.url), ...opts.keepEnv };
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, opts.timeoutMs);
  let stdout = '';
  let stderr = '';
  try {
    const options = {
      cwd: opts.cwd,
      env,
      hooks: opts.hooks,
      pathToClaudeCodeExecutable: opts.claudeBin,
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      abortController: abort,
      stderr: (s: string) => void (stderr += s),
      // Its own process group, so doctor can end it (and what it started) on Ctrl-C.
      spawnClaudeCodeProcess: (o: { command: string; args: string[]; cwd?: string; env: Record<string, string | undefined>; signal?: AbortSignal }) => {
        const child = spawn(o.command, o.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, ...(o.signal ? { signal: o.signal } : {}) });
        if (child.pid !== undefined) opts.onSpawn?.(child.pid);
        child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
        return child;
      },
    };
    let exitCode: number | null = 0;
    try {
      for await (const m of sdk.query({ prompt: opts.prompt, options })) {
        stdout += `${JSON.stringify(m)}\n`;
        if (m.type === 'result' && m.subtype !== 'success') exitCode = 1;
      }
    } catch (err) {
      if (!timedOut) stderr += `${(err as Error).message}\n`;
      exitCode = null;
    }
    return { exitCode, signal: null, timedOut, durationMs: Date.now() - started, stdout, stderr };
  } finally {
    clearTimeout(timer);
    rmSync(scratch, { recursive: true, force: true });
  }
}
