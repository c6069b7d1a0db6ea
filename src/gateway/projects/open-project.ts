// Opens one project for `serve --all`: its own gatehouse.yaml (notifications, always-allow rules),
// queue, terminals rooted at its worktree, dashboard sessions, warm hook calls and audit status.
import { basename } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { configAlwaysRules } from '../../runtime/approvals/always-rules.js';
import { ApprovalQueue } from '../../runtime/approvals/index.js';
import { loadConfig } from '../../runtime/config.js';
import { LinkBook, startNotifications } from '../../runtime/notify/index.js';
import { addApprovalRoutes } from '../approvals-routes.js';
import { addAuditRoutes } from '../audit-routes.js';
import { addDoctorRoutes } from '../doctor-routes.js';
import { stateBase } from '../../runtime/state-base.js';
import type { Credentials } from '../credentials.js';
import type { GateRunner } from '../gate-runner.js';
import { addHookRoutes } from '../hook-routes.js';
import type { HostPolicy } from '../host-origin.js';
import { PtyManager } from '../pty/index.js';
import { Router } from '../router.js';
import { sessionLauncher } from '../session-launcher.js';
import { sweepPeriodically } from '../sweeper.js';
import { createWebSocketEndpoint } from '../ws/endpoint.js';
import type { OpenableProject } from './project-pool.js';
import type { ServedProject } from './served-project.js';

/** What every project of one server shares. */
export interface ProjectHostOptions {
  /** The server's credentials and Host rule, which its projects' `/ws` endpoints check too. */
  credentials: Credentials;
  hosts: HostPolicy;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** `--public-url`, the base of notifications' links (each project's `notify.public_url` otherwise). */
  publicUrl: string | null;
  /** How hook calls are decided (the server's worker); in process when absent. */
  gate?: GateRunner;
  nodePath: string;
  hookBundle: string;
}

/**
 * Opens `entry` with its own config. A config that does not load, or a notification channel
 * that cannot work, is a refusal: the project is then listed with that problem, not served.
 * @example const p = await openProject({ key, state, worktree, problem: null }, host)
 */
export function openProject(entry: OpenableProject, host: ProjectHostOptions): Promise<Result<ServedProject>> {
  const { key, state, worktree } = entry;
  const config = loadConfig({ root: worktree });
  if (!config.ok) return Promise.resolve(fail(config.reason));
  const log = (line: string): void => host.log(`${key}: ${line}`);
  const queue = new ApprovalQueue(state);
  const links = new LinkBook();
  const notified = startNotifications({ config: config.value.notify, queue, projectState: state, projectRoot: worktree, env: host.env, log, publicUrl: host.publicUrl, links, projectKey: key });
  if (!notified.ok) return Promise.resolve(fail(notified.reason));
  const notifier = notified.value;
  const stopSweeping = sweepPeriodically(queue);
  const manager = new PtyManager({ projectRoot: worktree });
  const gate = host.gate;
  const router = new Router();
  addApprovalRoutes(router, queue);
  addAuditRoutes(router, state);
  addDoctorRoutes(router, stateBase(host.env));
  addHookRoutes(router, state, gate);
  const launcher = sessionLauncher({ worktree, stateDir: state, env: host.env, nodePath: host.nodePath, hookBundle: host.hookBundle, log, ...(gate === undefined ? {} : { gate }) });
  const websocket = createWebSocketEndpoint({
    manager,
    configRules: configAlwaysRules(config.value.approvals.always_allow),
    hooks: { onSpawnSession: launcher },
    queue,
    projectState: state,
    credentials: host.credentials,
    hosts: host.hosts,
    log,
  });
  const close = async (): Promise<void> => {
    stopSweeping();
    await notifier?.close();
    // The terminals first: their sessions end (hooks removed, final check, sandbox closed) before the endpoint closes.
    await manager.dispose();
    await websocket.close();
  };
  return Promise.resolve(ok({ key, name: basename(worktree), state, worktree, queue, router, websocket, links, close }));
}
