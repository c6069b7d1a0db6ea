// `gatehouse serve`: the supervisor on one local port — approvals API, JSON-RPC over
// WebSocket (PTY sessions, events), the dashboard, and audit status — behind an access token.
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { addAuditRoutes } from '../../gateway/audit-routes.js';
import { addDoctorRoutes } from '../../gateway/doctor-routes.js';
import { addHookRoutes } from '../../gateway/hook-routes.js';
import { hostedGate } from '../../gateway/gate-runner.js';
import { DEFAULT_PORT, startGateway } from '../../gateway/index.js';
import { PtyManager } from '../../gateway/pty/index.js';
import { sessionLauncher } from '../../gateway/session-launcher.js';
import { addWebRoutes } from '../../gateway/web-routes.js';
import { addLinkRoutes } from '../../gateway/link-routes.js';
import { configAlwaysRules } from '../../runtime/approvals/always-rules.js';
import { loadConfig } from '../../runtime/config.js';
import { ApprovalQueue } from '../../runtime/approvals/index.js';
import { LinkBook, publicUrlIn, startNotifications } from '../../runtime/notify/index.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import { describePortHolder, portHolder } from '../../runtime/port-holder.js';
import { liveSupervisor, readSupervisorRecord, removeSupervisorRecord, writeSupervisorRecord } from '../../runtime/supervisor-record.js';
import { defaultLayoutKey, writeProjectRecord } from '../../runtime/project-record.js';
import { stateBase } from '../../runtime/state-base.js';
import { outsideAnyProject, serveAll } from './serve-all.js';
import { EXIT, UserError } from '../exit-codes.js';
import { gateWorkerPath, hookBundlePath, projectStateFor } from '../context.js';
import { projectKey } from '../../runtime/state-base.js';
import { addTeamRoutes } from '../../gateway/team-routes.js';
import { teamApprovalsOn } from '../../runtime/store/team-approvals-pg.js';
import type { TeamLink } from '../../runtime/store/team-link.js';
import { parseFallback, settingOrExit, startLinkOrExit, teamStoreSpec } from '../team-store.js';
import { isoTime } from '../../core/iso-time.js';

/** 256 bits: the access token guards remote code execution (a PTY), so it is never guessable. */
const ACCESS_TOKEN_BYTES = 32;

/** How long a stopping `serve` waits for what is waiting to reach the team store (it is forwarded later otherwise). */
const STOP_FLUSH_MS = 5_000;

/** The dashboard's static files, built beside the CLI bundle. */
function webDir(): string {
  return fileURLToPath(new URL('./web/', import.meta.url));
}

/**
 * What to say when the port cannot be bound: who holds a busy one (and whether it is this
 * project's own supervisor), and which flag to change. Other failures keep their message.
 */
function bindFailure(err: NodeJS.ErrnoException, host: string, port: number, state: string, whose = "this project's supervisor"): string {
  if (err.code === 'EACCES') return `port ${port} on ${host} needs privileges this user lacks: use --port ${DEFAULT_PORT}, another port above 1023, or --port 0 for any free port`;
  if (err.code !== 'EADDRINUSE') return err.message;
  const holder = portHolder(port);
  const own = holder !== null && holder.pid !== null && readSupervisorRecord(state)?.pid === holder.pid;
  const hint = `stop it, or start on another port with --port ${port === 65535 ? port - 1 : port + 1} (or --port 0 for any free port)`;
  if (own) return `port ${port} on ${host} is in use by ${whose}, already running as ${describePortHolder(holder)}: open the dashboard URL it printed, or ${hint}`;
  return `port ${port} on ${host} is in use by ${describePortHolder(holder)}: ${hint}`;
}

/** The real path of `p`, or `p` itself when it does not exist yet. */
function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** `gatehouse serve`. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('the supervisor: dashboard, PTY sessions over WebSocket, approvals API — one local port')
    .option('--host <host>', 'address to bind (non-loopback needs scoped tokens in the config)', '127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', String(DEFAULT_PORT))
    .option('--project <dir>', 'the project folder to supervise (default: the current folder)')
    .option('--worktree <dir>', 'the same as --project')
    .option('--state-dir <dir>', 'project state folder')
    .option('--public-url <url>', 'where people reach this server (behind a tunnel or proxy): the base of links in notifications')
    .option('--all', 'supervise every project under the state base on this one port, with a project switcher (also what `serve` does outside any project)')
    .option(
      '--store <url>',
      "the team store (postgres://user@host:5432/db?password_env=NAME): link the served project(s) to it and show every machine's sessions and approvals (default: store: in gatehouse.yaml, else GATEHOUSE_STORE)",
    )
    .option('--store-fallback <store>', "when the team store cannot be reached at start: serve on this machine's file store and keep trying (file)")
    .addHelpText(
      'after',
      '\nRun it in the project folder, or point it there with --project DIR (from a Gatehouse clone: `npm start -- --project DIR`).\nRun outside any project (your home folder, /, or a folder with no .git, gatehouse.yaml or Gatehouse state), or with --all, it supervises every project.',
    )
    .action(async (flags: { host: string; port: string; project?: string; worktree?: string; stateDir?: string; publicUrl?: string; all?: boolean; store?: string; storeFallback?: string }) => {
      const fallback = parseFallback(flags.storeFallback);
      if (!/^\d{1,5}$/.test(flags.port) || Number(flags.port) > 65535) throw new UserError(`--port must be 0-65535, got ${JSON.stringify(flags.port)}`, EXIT.usage);
      const named = flags.project !== undefined || flags.worktree !== undefined || flags.stateDir !== undefined;
      if (flags.all === true && named) {
        throw new UserError('--all serves every project under the state base: give either --all or --project DIR (and --state-dir), not both', EXIT.usage);
      }
      const here = named || flags.all === true ? null : outsideAnyProject(realpathSync(resolve('.')), process.env);
      if (flags.all === true || here !== null) {
        // Only this machine's own setting here: each project's notify.public_url is checked as it opens.
        const publicAll = settingOrExit(publicUrlIn(flags.publicUrl, undefined, process.env));
        await serveAll({
          host: flags.host,
          port: Number(flags.port),
          publicUrl: publicAll,
          because: here,
          store: settingOrExit(teamStoreSpec(flags.store, null, process.env)),
          fallback,
          bindFailure: (err, base) => bindFailure(err, flags.host, Number(flags.port), base, 'the supervisor of all projects'),
        });
        return;
      }
      if (flags.project !== undefined && flags.worktree !== undefined && resolve(flags.project) !== resolve(flags.worktree)) {
        throw new UserError('--project and --worktree name the same thing: give one of them', EXIT.usage);
      }
      const dir = flags.project ?? flags.worktree ?? '.';
      let worktree: string;
      try {
        worktree = realpathSync(resolve(dir));
      } catch {
        throw new UserError(`the project folder ${resolve(dir)} does not exist; give an existing folder with --project DIR`, EXIT.usage);
      }
      const state = projectStateFor(worktree, flags.stateDir);
      const config = loadConfig({ root: worktree });
      if (!config.ok) throw new UserError(config.reason);
      // One supervisor per project: a second would take over the record and the token, and hide
      // the first (its warm hooks and dashboard) when it stops.
      const running = await liveSupervisor(state);
      if (running !== null && running.pid !== process.pid) {
        throw new UserError(
          `this project is already supervised by pid ${running.pid} on port ${running.port} (started ${running.started_at}): use that one (its dashboard URL was printed when it started; \`gatehouse approve\` and \`gatehouse tui\` work beside it), or stop it first`,
        );
      }
      // …and a `serve --all` for the state base already covers every project in its default layout.
      const key = defaultLayoutKey(realpathOr(state), process.env);
      const all = key === null ? null : await liveSupervisor(stateBase(process.env));
      if (all !== null && all.all === true && all.pid !== process.pid) {
        throw new UserError(
          `this project is already supervised by \`gatehouse serve --all\` (pid ${all.pid} on port ${all.port}, started ${all.started_at}), as ${key}: use that one (pick the project in its dashboard), or stop it first`,
        );
      }
      // Where people reach this server from elsewhere (a tunnel, a proxy): the links' base, and a Host and origin to accept.
      const publicUrl = settingOrExit(publicUrlIn(flags.publicUrl, config.value.notify.public_url, process.env));
      const log = (line: string): void => void process.stderr.write(`gatehouse serve: ${line}\n`);
      // The team link: this project's sessions, evidence (and, wired beside it, approvals and audit) to the team store.
      const teamSpec = settingOrExit(teamStoreSpec(flags.store, config.value.store, process.env));
      const team: TeamLink | null =
        teamSpec === null ? null : await startLinkOrExit(teamSpec, [{ projectState: state, projectKey: projectKey(worktree), worktree }], fallback, (line) => log(`team store: ${line}`));
      const links = new LinkBook();
      // Told only when a call waits for a person. A channel that cannot work is refused now, not found out at the first call.
      const notified = startNotifications({
        config: config.value.notify,
        queue: new ApprovalQueue(state),
        projectState: state,
        projectRoot: worktree,
        env: process.env,
        log,
        publicUrl,
        links,
      });
      if (!notified.ok) {
        await team?.stop();
        throw new UserError(`${notified.reason}`);
      }
      const notifier = notified.value;
      // A fresh token per start, stored 0600 for local tools and printed once inside the URL.
      const accessToken = randomBytes(ACCESS_TOKEN_BYTES).toString('hex');
      mkdirSync(join(state, 'gateway'), { recursive: true, mode: 0o700 });
      writeFileAtomic(join(state, 'gateway', 'access-token'), `${accessToken}\n`, { mode: 0o600 });
      const manager = new PtyManager({ projectRoot: worktree });
      // Hook calls run in a worker thread: a lock one of them waits on never stalls a terminal or a client.
      const gate = hostedGate(gateWorkerPath());
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
          publicUrl,
          team: team !== null,
          websocket: {
            manager,
            configRules: configAlwaysRules(config.value.approvals.always_allow),
            hooks: { onSpawnSession: sessionLauncher({ worktree, stateDir: state, env: process.env, nodePath: process.execPath, hookBundle: hookBundlePath(), log, gate: gate.run }) },
          },
          routes: (router) => {
            addAuditRoutes(router, state);
            addDoctorRoutes(router, stateBase(process.env));
            addHookRoutes(router, state, gate.run);
            addWebRoutes(router, { webDir: webDir(), accessToken });
            addLinkRoutes(router, { queue: new ApprovalQueue(state), links, project: basename(worktree) });
            if (team !== null) addTeamRoutes(router, { label: team.label, machineId: team.machine.id, store: () => team.store(), approvals: teamApprovalsOn(() => team.store(), team.label) });
          },
        });
      } catch (err) {
        await notifier?.close();
        await manager.dispose();
        await gate.close();
        await team?.stop();
        throw new UserError(bindFailure(err as NodeJS.ErrnoException, flags.host, Number(flags.port), state));
      }
      // Sessions started from now on (`--transport auto`) send their hook calls here.
      writeProjectRecord(state, worktree);
      writeSupervisorRecord(state, { pid: process.pid, port: gw.port, started_at: isoTime() });
      process.stdout.write(`gatehouse supervisor for ${worktree}\n${team === null ? '' : `team store: ${team.label}\n`}dashboard: ${gw.url}/?token=${accessToken}\n`);
      const stop = (): void => {
        removeSupervisorRecord(state);
        // The terminals first: their sessions end (hooks removed, final check, sandbox closed) before the server closes.
        void (notifier?.close() ?? Promise.resolve())
          .then(() => manager.dispose())
          .then(() => gw.close())
          .then(() => gate.close())
          .then(() => team?.flush(STOP_FLUSH_MS))
          .then(() => team?.stop())
          .then(() => process.exit(EXIT.ok));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
