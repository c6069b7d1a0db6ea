// Which team store a long-lived command links to, and starting that link: the password is
// taken out of this process's environment first, so no agent, terminal or hook inherits it.
import { ok, type Result } from '../core/result.js';
import { parseStoreSetting, selectStore, type PostgresSpec, type StoreSpec } from '../runtime/store/store-setting.js';
import { thisMachine } from '../runtime/store/machine.js';
import { startTeamLink, type LinkProject, type StoreFallback, type TeamLink } from '../runtime/store/team-link.js';
import { EXIT, UserError } from './exit-codes.js';

/** The values of `--store-fallback`. */
const FALLBACKS = ['file'] as const;

/** Reads `--store-fallback`; a usage error for anything but `file`. */
export function parseFallback(value: string | undefined): StoreFallback {
  if (value === undefined) return null;
  if ((FALLBACKS as readonly string[]).includes(value)) return 'file';
  throw new UserError(`--store-fallback must be ${FALLBACKS.join(' or ')}, got ${JSON.stringify(value)}`, EXIT.usage);
}

/**
 * The PostgreSQL store in force, or null for the file store: `--store` when given, else the
 * project's `store:`, else GATEHOUSE_STORE.
 */
export function teamStoreSpec(flag: string | undefined, configured: StoreSpec | null, env: NodeJS.ProcessEnv): Result<PostgresSpec | null> {
  const spec = flag !== undefined ? parseStoreSetting(flag, '--store') : selectStore(configured, env);
  if (!spec.ok) return spec;
  return ok(spec.value.kind === 'postgres' ? spec.value : null);
}

/**
 * The variables the link reads its password from, copied; removed from this process's
 * environment so that nothing started from here (the agent, a dashboard terminal, a hook) gets them.
 */
function takePassword(spec: PostgresSpec, env: NodeJS.ProcessEnv): { spec: PostgresSpec; env: NodeJS.ProcessEnv } {
  // Without password_env the driver would read PGPASSWORD itself, from this process, at every connection: name it
  // instead, except for a store a project's config names, which gets only what it names or a pgpass file (openStore).
  if (spec.fromProject === true && spec.passwordEnv === null) return { spec, env: {} };
  const name = spec.passwordEnv ?? (env['PGPASSWORD'] !== undefined ? 'PGPASSWORD' : null);
  if (name === null) return { spec, env: {} };
  const value = env[name];
  delete env[name];
  if (name === 'PGPASSWORD' || spec.passwordEnv === null) delete env['PGPASSWORD'];
  return { spec: { ...spec, passwordEnv: name }, env: value === undefined ? {} : { [name]: value } };
}

/**
 * Starts the link for `projects`, or throws the error that names the store and what to do
 * (exit 69), unless `fallback` is `file`.
 */
export async function startLinkOrExit(spec: PostgresSpec, projects: LinkProject[], fallback: StoreFallback, warn: (line: string) => void): Promise<TeamLink> {
  const machine = thisMachine(process.env);
  const taken = takePassword(spec, process.env);
  const link = await startTeamLink({ spec: taken.spec, projects, env: taken.env, machine, warn, fallback });
  if (!link.ok) throw new UserError(`${link.reason} Nothing was started.`, EXIT.storeUnavailable);
  return link.value;
}

/** A `fail` for a store setting that cannot be read, as a UserError. */
export function settingOrExit<T>(r: Result<T>): T {
  if (!r.ok) throw new UserError(r.reason, EXIT.usage);
  return r.value;
}
