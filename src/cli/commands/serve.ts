// `gatehouse serve`: the supervisor on one local port — approvals API, JSON-RPC over
// WebSocket (PTY sessions, events), the dashboard, and audit status — behind an access token.
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { addAuditRoutes } from '../../gateway/audit-routes.js';
import { addHookRoutes } from '../../gateway/hook-routes.js';
import { startGateway } from '../../gateway/index.js';
import { PtyManager } from '../../gateway/pty/index.js';
import { sessionLauncher } from '../../gateway/session-launcher.js';
import { addWebRoutes } from '../../gateway/web-routes.js';
import { configAlwaysRules } from '../../runtime/approvals/always-rules.js';
import { loadConfig } from '../../runtime/config.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import { removeSupervisorRecord, writeSupervisorRecord } from '../../runtime/supervisor-record.js';
import { EXIT, UserError } from '../exit-codes.js';
import { hookBundlePath, projectStateFor } from '../context.js';

/** 256 bits: the access token guards remote code execution (a PTY), so it is never guessable. */
const ACCESS_TOKEN_BYTES = 32;

/** The dashboard's static files, built beside the CLI bundle. */
function webDir(): string {
  return fileURLToPath(new URL('./web/', import.meta.url));
}

/** `gatehouse serve`. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('the supervisor: dashboard, PTY sessions over WebSocket, approvals API — one local port')
    .option('--host <host>', 'address to bind (non-loopback needs scoped tokens in the config)', '127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', '7337')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .action(async (flags: { host: string; port: string; worktree?: string; stateDir?: string }) => {
      if (!/^\d{1,5}$/.test(flags.port) || Number(flags.port) > 65535) throw new UserError(`--port must be 0-65535, got ${JSON.stringify(flags.port)}`, EXIT.usage);
      const worktree = realpathSync(resolve(flags.worktree ?? '.'));
      const state = projectStateFor(worktree, flags.stateDir);
      const config = loadConfig({ root: worktree });
      if (!config.ok) throw new UserError(config.reason);
      // A fresh token per start, stored 0600 for local tools and printed once inside the URL.
      const accessToken = randomBytes(ACCESS_TOKEN_BYTES).toString('hex');
      mkdirSync(join(state, 'gateway'), { recursive: true, mode: 0o700 });
      writeFileAtomic(join(state, 'gateway', 'access-token'), `${accessToken}\n`, { mode: 0o600 });
      const log = (line: string): void => void process.stderr.write(`gatehouse serve: ${line}\n`);
      const manager = new PtyManager({ projectRoot: worktree });
      let gw;
      try {
        gw = await startGateway({
          projectState: state,
          host: flags.host,
          port: Number(flags.port),
          accessToken,
          tokens: config.value.approvals.tokens,
          env: process.env,
          log,
          websocket: { manager, configRules: configAlwaysRules(config.value.approvals.always_allow), hooks: { onSpawnSession: sessionLauncher({ worktree, stateDir: state, env: process.env, nodePath: process.execPath, hookBundle: hookBundlePath(), log }) } },
          routes: (router) => {
            addAuditRoutes(router, state);
            addHookRoutes(router, state);
            addWebRoutes(router, { webDir: webDir(), accessToken });
          },
        });
      } catch (err) {
        await manager.dispose();
        throw new UserError((err as Error).message);
      }
      // Sessions started from now on (`--transport auto`) send their hook calls here.
      writeSupervisorRecord(state, { pid: process.pid, port: gw.port, started_at: new Date().toISOString() });
      process.stdout.write(`gatehouse supervisor for ${worktree}\ndashboard: ${gw.url}/?token=${accessToken}\n`);
      const stop = (): void => {
        removeSupervisorRecord(state);
        void gw.close().then(() => manager.dispose()).then(() => process.exit(EXIT.ok));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
