// The team log side of `gatehouse audit`: verify the rows of a PostgreSQL team store against
// the machines' public keys, and export them as a file-store audit folder.
import type { KeyObject } from 'node:crypto';
import type { VerifyReport } from '../../runtime/audit/verify.js';
import { exportTeamAudit } from '../../runtime/store/pg-audit-export.js';
import { verifyTeamAudit } from '../../runtime/store/pg-audit-verify.js';
import { openStore, type PgStore } from '../../runtime/store/pg-connect.js';
import { parseStoreSetting } from '../../runtime/store/store-setting.js';
import { EXIT, UserError } from '../exit-codes.js';

/** Opens the store a `--store` URL names, read-only in intent: no tables are created. */
async function openNamedStore(url: string): Promise<PgStore> {
  const spec = parseStoreSetting(url, '--store');
  if (!spec.ok) throw new UserError(spec.reason, EXIT.usage);
  if (spec.value.kind !== 'postgres') throw new UserError("--store takes a postgres:// URL; to check this machine's own log, leave --store out.", EXIT.usage);
  const opened = await openStore(spec.value, { max: 2, migrate: false });
  if (!opened.ok) throw new UserError(opened.reason);
  return opened.value;
}

/** `audit verify --store URL --key PUB…`: the report of the team log's rows. */
export async function verifyStore(url: string, keys: KeyObject[]): Promise<VerifyReport> {
  if (keys.length === 0) {
    throw new UserError(
      'verify --store needs --key PUB.pem for every machine that writes to the team log (`gatehouse keys show` on each prints it); keys are never taken from the database.',
      EXIT.usage,
    );
  }
  const store = await openNamedStore(url);
  try {
    return await verifyTeamAudit(store, keys);
  } catch (err) {
    throw new UserError(`Cannot read the team log from ${store.label} (${(err as Error).message}); check that the database answers and that this user may read the gh_audit_* tables.`);
  } finally {
    await store.close();
  }
}

/** `audit export --store URL --out DIR`: the counts written. */
export async function exportStore(url: string, out: string): Promise<{ events: number; checkpoints: number }> {
  const store = await openNamedStore(url);
  try {
    const r = await exportTeamAudit(store, out);
    if (!r.ok) throw new UserError(r.reason, EXIT.usage);
    return r.value;
  } finally {
    await store.close();
  }
}
