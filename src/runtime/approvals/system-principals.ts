// The queue's own principals, under which it denies requests nobody can answer any more,
// and the principal check for resolutions read back from disk.
import { checkPrincipal, systemPrincipal, type Principal } from '../../core/approvals/principal.js';
import type { Result } from '../../core/result.js';

/** Who denies a request whose time ran out while its hook was waiting. */
export const TTL_EXPIRY_PRINCIPAL: Principal = systemPrincipal('approval-queue/ttl-expiry');
/** Who denies requests left behind by dead hooks, or expired with nobody waiting. */
export const SWEEPER_PRINCIPAL: Principal = systemPrincipal('approval-queue/sweeper');
/** Who withdraws a request whose waiting hook call was cancelled (its client went away). */
export const WITHDRAWN_PRINCIPAL: Principal = systemPrincipal('approval-queue/withdrawn');
/** Stands for a resolution file that fails its checks: the hook must not act on it, so it denies. */
export const CORRUPT_RECORD_PRINCIPAL: Principal = systemPrincipal('approval-queue/corrupt-record');

/** Only the fields a principal has, so nothing else a caller attached (a token, a request) is ever stored. */
export function principalFields(p: Principal): Principal {
  return { id: p.id, auth: p.auth, ...(p.session === undefined ? {} : { session: p.session }), ...(p.grant === undefined ? {} : { grant: p.grant }) };
}

/** Checks a principal read back from a resolution, keeping only its own fields. */
export function checkStoredPrincipal(value: unknown): Result<Principal> {
  const checked = checkPrincipal(value as Principal);
  return checked.ok ? { ok: true, value: principalFields(checked.value) } : checked;
}
