// `gatehouse serve --all` (or `serve` outside any project): one supervisor on one port for every
// project under the state base, each picked by its key; warm hooks of any of them reach it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostedGate } from '../../gateway/gate-runner.js';
import { startGateway } from '../../gateway/index.js';
import { addLinkRoutes } from '../../gateway/link-routes.js';
import { openProject } from '../../gateway/projects/open-project.js';
import { ProjectPool } from '../../gateway/projects/project-pool.js';
import { addWebRoutes } from '../../gateway/web-routes.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import { listProjects } from '../../runtime/project-record.js';
import { stateBase } from '../../runtime/state-base.js';
import { resolveProjectState } from '../../runtime/state-base.js';
import { liveSupervisor, removeSupervisorRecord, writeSupervisorRecord } from '../../runtime/supervisor-record.js';
import { EXIT, UserError } from '../exit-codes.js';
import { gateWorkerPath, hookBundlePath } from '../context.js';
import { addTeamRoutes } from '../../gateway/team-routes.js';
import { teamApprovalsOn } from '../../runtime/store/team-approvals-pg.js';
import { projectKey } from '../../runtime/state-base.js';
import { sameServer, storeLabel, type PostgresSpec } from '../../runtime/store/store-setting.js';
import type { StoreFallback, TeamLink } from '../../runtime/store/team-link.js';
import { startLinkOrExit } from '../team-store.js';
import { loadConfig } from '../../runtime/config.js';
import { isoTime } from '../../core/iso-time.js';

/** 256 bits: the access token guards remote code execution (a PTY) in every project, so it is never guessable. */
const ACCESS_TOKEN_BYTES = 32;

/** What `serve --all` is started with. */
export interface ServeAllFlags {
  host: string;
  port: number;
  publicUrl: string | null;
  /** Why all projects are served although `--all` was not given (the first line says so), or null. */
  because: string | null;
  /** The team store (`--store`, else GATEHOUSE_STORE), or null for the file store. */
  store: PostgresSpec | null;
  fallback: StoreFallback;
  /** Says why a port could not be bound. */
  bindFailure: (err: NodeJS.ErrnoException, base: string) => string;
}

/**
 * Whether `dir` (a real path) is outside any project, so a bare `serve` there serves them all:
 * the home folder or `/`, or a folder with neither `.git` nor a Gatehouse config and no state yet.
 * Conservative on purpose: a folder that might be a project stays a project.
 */
export function outsideAnyProject(dir: string, env: NodeJS.ProcessEnv): string | null {
  if (dir === '/' || dir === realHome()) return `${dir} is ${dir === '/' ? 'the root folder' : 'your home folder'}, not a project`;
  const marks = ['.git', 'gatehouse.yaml', 'gatehouse.yml', 'gatehouse.toml'];
  if (marks.some((m) => existsSync(join(dir, m)))) return null;
  if (existsSync(resolveProjectState(dir, env))) return null;
  return `${dir} has no .git, no gatehouse.yaml and no Gatehouse state, so it is not a project`;
}

function realHome(): string {
  try {
    return realpathSync(homedir());
  } catch {
    return homedir();
  }
}

/** The web bundle's folder, beside the CLI bundle. */
function webDir(): string {
  return fileURLToPath(new URL('./web/', import.meta.url));
}

/** Runs the supervisor of all projects until SIGINT or SIGTERM. */
export async function serveAll(flags: ServeAllFlags): Promise<void> {
  const base = stateBase(process.env);
  // One supervisor per project: another `--all`, or a project's own `serve`, would share its projects' warm hooks and queues.
  const other = await liveSupervisor(base);
  if (other !== null && other.pid !== process.pid) {
    throw new UserError(`all projects in ${base} are already supervised by pid ${other.pid} on port ${other.port} (started ${other.started_at}): use that one, or stop it first`);
  }
  for (const p of listProjects(base)) {
    const own = await liveSupervisor(p.state);
    if (own !== null && own.pid !== process.pid && own.all !== true) {
      throw new UserError(
        `project ${p.worktree ?? p.key} is already supervised by its own \`gatehouse serve\` (pid ${own.pid} on port ${own.port}): stop it first, then start \`gatehouse serve --all\` to supervise every project in one place`,
      );
    }
  }
  const log = (line: string): void => void process.stderr.write(`gatehouse serve: ${line}\n`);
  // Every project found now is linked; one first served later is linked by its own next `run` or `serve` (docs/teams.md).
  const linked = listProjects(base).flatMap((p) => (p.worktree === null ? [] : [{ projectState: p.state, projectKey: projectKey(p.worktree), worktree: p.worktree }]));
  // A project's own `store:` wins over the machine's: one that chose the file store or another store is not linked here.
  const ours = flags.store === null ? [] : linked.filter((p) => choosesStore(p.worktree, flags.store!, log));
  const team: TeamLink | null = flags.store === null ? null : await startLinkOrExit(flags.store, ours, flags.fallback, (line) => log(`team store: ${line}`));
  const accessToken = randomBytes(ACCESS_TOKEN_BYTES).toString('hex');
  mkdirSync(join(base, 'gateway'), { recursive: true, mode: 0o700 });
  writeFileAtomic(join(base, 'gateway', 'access-token'), `${accessToken}\n`, { mode: 0o600 });
  const gate = hostedGate(gateWorkerPath());
  let pool: ProjectPool | null = null;
  let gw;
  try {
    gw = await startGateway({
      projectState: base,
      host: flags.host,
      port: flags.port,
      accessToken,
      // Scoped tokens are each project's config: one server for all cannot take one project's word for another's.
      tokens: [],
      env: process.env,
      log,
      publicUrl: flags.publicUrl,
      team: team !== null,
      projects: ({ credentials, hosts }) => {
        pool = new ProjectPool({
          base,
          log,
          open: (entry) => openProject(entry, { credentials, hosts, env: process.env, log, publicUrl: flags.publicUrl, gate: gate.run, nodePath: process.execPath, hookBundle: hookBundlePath() }),
        });
        return pool;
      },
      routes: (router) => {
        addWebRoutes(router, { webDir: webDir(), accessToken });
        addLinkRoutes(router, () => (pool?.opened() ?? []).map((p) => ({ queue: p.queue, links: p.links, project: p.name })));
        if (team !== null) addTeamRoutes(router, { label: team.label, machineId: team.machine.id, store: () => team.store(), approvals: teamApprovalsOn(() => team.store(), team.label) });
      },
    });
  } catch (err) {
    await gate.close();
    await team?.stop();
    throw new UserError(flags.bindFailure(err as NodeJS.ErrnoException, base));
  }
  const started = pool as ProjectPool | null;
  await started?.start();
  // Sessions started from now on (`--transport auto`) in any project of this base send their hook calls here.
  writeSupervisorRecord(base, { pid: process.pid, port: gw.port, started_at: isoTime(), all: true });
  const listed = started?.list() ?? [];
  const head = `gatehouse supervisor for all projects in ${base} (${listed.length} found)`;
  process.stdout.write(`${flags.because === null ? head : `${head}: ${flags.because}`}\n${team === null ? '' : `team store: ${team.label}\n`}dashboard: ${gw.url}/?token=${accessToken}\n`);
  for (const p of listed) if (p.problem !== null) log(`project ${p.key} is listed but not served: ${p.problem}`);
  const stop = (): void => {
    removeSupervisorRecord(base);
    void gw
      .close()
      .then(() => gate.close())
      .then(() => team?.stop())
      .then(() => process.exit(EXIT.ok));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** Whether the project at `worktree` keeps its records in `store`: its config says so, or says nothing. */
function choosesStore(worktree: string, store: PostgresSpec, log: (line: string) => void): boolean {
  const config = loadConfig({ root: worktree });
  if (!config.ok) {
    log(`team store: ${worktree} is not linked: its config cannot be read (${config.reason})`);
    return false;
  }
  const own = config.value.store;
  if (own === null || (own.kind === 'postgres' && sameServer(own.url, store.url))) return true;
  log(`team store: ${worktree} is not linked: its own store: setting names ${storeLabel(own)}`);
  return false;
}
