// Which store holds a project's approvals, audit log, evidence index and session registry:
// the state folder on this machine (the default), or a team's PostgreSQL database. The
// setting names the database; its password never appears in it.
import { fail, ok, type Result } from '../../core/result.js';

/** The file store (this machine's state folder) or a PostgreSQL database. */
export type StoreSpec = { kind: 'file' } | PostgresSpec;

export interface PostgresSpec {
  kind: 'postgres';
  /** The connection URL with no password in it (and no `password_env`). */
  url: string;
  /** The environment variable holding the password; null: PGPASSWORD or a pgpass file, as libpq reads them. */
  passwordEnv: string | null;
  /**
   * Named by the project's config, which a cloned repository brings: its password comes only from a
   * GATEHOUSE_… variable it names, and then only for the server GATEHOUSE_STORE names too
   * (selectStore), or from a pgpass file (which matches the host); never from PGPASSWORD. So a
   * config cannot send a secret of yours to a host it names.
   */
  fromProject?: true;
}

/** Query parameters passed on to the driver; anything else is refused, so a typo never goes unnoticed. */
const PASSED_PARAMS = new Set(['sslmode', 'application_name', 'connect_timeout']);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** The variables a project's config may take the password from (as for notification secrets). */
const PROJECT_ENV_NAME = /^GATEHOUSE_[A-Z0-9_]{1,120}$/;

/** The file store. */
const FILE_STORE: StoreSpec = { kind: 'file' };

/**
 * Reads a store setting: `file`, or `postgres://user@host:port/db` with an optional
 * `?password_env=NAME` naming the variable that holds the password. `where` names the
 * setting's source in messages (`gatehouse.yaml: store`, `GATEHOUSE_STORE`).
 * @example parseStoreSetting('postgres://gh@db:5432/gatehouse?password_env=GH_PG', 'GATEHOUSE_STORE')
 */
export function parseStoreSetting(text: string, where: string, from: 'user' | 'project' = 'user'): Result<StoreSpec> {
  const value = text.trim();
  if (value === 'file') return ok(FILE_STORE);
  if (!/^postgres(ql)?:\/\//i.test(value) || !URL.canParse(value)) {
    return fail(`${where}: expected \`file\` or a postgres:// URL (postgres://user@host:5432/database), got ${JSON.stringify(value)}.`);
  }
  const url = new URL(value);
  if (url.password !== '') {
    return fail(`${where}: the URL holds a password; never write it in a setting. Remove it and name the variable that holds it with ?password_env=NAME, or put it in a pgpass file.`);
  }
  if (url.hostname === '') return fail(`${where}: the URL names no host; write postgres://user@host:5432/database.`);
  if (url.username === '') return fail(`${where}: the URL names no user; write postgres://user@host:5432/database.`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) return fail(`${where}: the URL names no database; write postgres://user@host:5432/database.`);
  let passwordEnv: string | null = null;
  for (const [key, v] of [...url.searchParams]) {
    if (key === 'password_env') {
      if (!ENV_NAME.test(v)) return fail(`${where}: password_env must be the name of an environment variable, got ${JSON.stringify(v)}.`);
      if (from === 'project' && !PROJECT_ENV_NAME.test(v)) {
        return fail(`${where}: password_env must name a variable for Gatehouse (GATEHOUSE_…), got ${JSON.stringify(v)}: a project's config may not send any other variable to a host it names.`);
      }
      passwordEnv = v;
      url.searchParams.delete(key);
    } else if (!PASSED_PARAMS.has(key)) {
      return fail(`${where}: unknown URL parameter \`${key}\`; expected password_env, ${[...PASSED_PARAMS].join(', ')}.`);
    }
  }
  return ok({ kind: 'postgres', url: url.toString(), passwordEnv, ...(from === 'project' ? { fromProject: true as const } : {}) });
}

/**
 * The store in force: the project config's `store:` when it has one, else `GATEHOUSE_STORE`,
 * else the file store. A machine-wide variable never overrides what a project chose; but a
 * project's store that takes its password from the environment is used only when this machine
 * chose that same server (GATEHOUSE_STORE names it), and then as GATEHOUSE_STORE says: a
 * repository's config alone cannot send a password of yours to a server it names.
 */
export function selectStore(configured: StoreSpec | null, env: NodeJS.ProcessEnv): Result<StoreSpec> {
  const fromEnv = env['GATEHOUSE_STORE'];
  const mine = fromEnv === undefined || fromEnv.trim() === '' ? ok(FILE_STORE) : parseStoreSetting(fromEnv, 'GATEHOUSE_STORE');
  if (configured === null) return mine;
  if (configured.kind !== 'postgres' || configured.fromProject !== true) return ok(configured);
  const chosen = mine.ok && mine.value.kind === 'postgres' ? mine.value : null;
  // The server this machine chose: connect as this machine says (its parameters, its password), not as the repository does.
  if (chosen !== null && sameServer(chosen.url, configured.url)) return ok(chosen);
  if (configured.passwordEnv !== null) {
    const machine = !mine.ok ? 'GATEHOUSE_STORE cannot be read' : chosen === null ? 'GATEHOUSE_STORE names no PostgreSQL server' : `GATEHOUSE_STORE names ${storeLabel(chosen)}`;
    return fail(
      `gatehouse.yaml: store names ${storeLabel(configured)} with its password in $${configured.passwordEnv}, but this machine has not chosen that server (${machine}). ` +
        `A repository's config cannot send a password from your environment to a server you did not choose: set GATEHOUSE_STORE to that URL on this machine if it is your team's, ` +
        `or take password_env out of the setting and give the password in a pgpass file (~/.pgpass), which is only ever sent to the host it names.`,
    );
  }
  return ok(configured);
}

/** Whether two store URLs name the same server, user and database (the port defaulting to 5432). */
export function sameServer(a: string, b: string): boolean {
  const [x, y] = [new URL(a), new URL(b)];
  return x.username === y.username && x.hostname.toLowerCase() === y.hostname.toLowerCase() && (x.port || '5432') === (y.port || '5432') && x.pathname === y.pathname;
}

/** The URL as shown to people: the store's user, host, port and database, never a secret. */
export function storeLabel(spec: StoreSpec): string {
  if (spec.kind === 'file') return 'file (this machine)';
  const u = new URL(spec.url);
  return `postgres://${u.username}@${u.host}${u.pathname}`;
}
