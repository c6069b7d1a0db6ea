// `GET /api/doctor`: the last `gatehouse doctor` result per agent, as stored under the state
// base, for the dashboard's header line. Read-only; doctor itself runs from the command line.
import { readStoredResults } from '../runtime/doctor/agent-report.js';
import type { Router } from './router.js';

/** Adds the doctor route (readable by anyone who may read the approvals queue). */
export function addDoctorRoutes(router: Router, stateBase: string): Router {
  return router.add({
    method: 'GET',
    path: '/api/doctor',
    scope: 'approvals:read',
    handle: () => ({ status: 200, body: { agents: readStoredResults(stateBase) } }),
  });
}
