// `GET /api/audit/status`: the dashboard's view of the audit log — verified now against the
// project's keys: events, checkpoints, root, the last checkpoint and the first problem.
import { join } from 'node:path';
import { verifyAudit } from '../runtime/audit/verify.js';
import { AuditLog } from '../runtime/audit/log.js';
import { knownPublicKeys } from '../runtime/key-history.js';
import type { Router } from './router.js';

/** Adds the audit status route (readable by anyone who may read the approvals queue). */
export function addAuditRoutes(router: Router, projectState: string): Router {
  return router.add({
    method: 'GET',
    path: '/api/audit/status',
    scope: 'approvals:read',
    handle: () => {
      const dir = join(projectState, 'audit');
      const report = verifyAudit(dir, [...knownPublicKeys(projectState).values()]);
      const last = new AuditLog(dir).latestCheckpoint();
      return {
        status: 200,
        body: {
          ok: report.ok,
          events: report.events,
          checkpoints: report.checkpoints,
          root: report.root,
          covered: report.covered,
          last_checkpoint: last ? { tree_size: last.tree_size, time: last.time } : null,
          first_bad: report.first_bad,
          // The keys are the ones stored beside the log: this shows self-consistency; `audit verify --key` is the real check.
          trust: 'local-keys',
        },
      };
    },
  });
}
