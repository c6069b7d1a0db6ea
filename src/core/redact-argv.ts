// Hides the secrets a command line may carry before it is shown, sent or logged: environment
// values, secret-named option values, credential headers, URL userinfo, and the same inside `-c` scripts.

/** What a hidden value is shown as: says that something was there without saying what. */
const HIDDEN = '***';

/** `NAME=value` as `env` and shells take it; `--opt=value` is not one (it starts with a dash). */
const ASSIGNMENT_RE = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/s;

/** The end of an option name that says its value is a credential (`api-key`, `api_key`, `client-secret`…). */
const SECRET_NAME = '(?:key|token|secret|passw(?:or)?d|auth|authorization|bearer|credentials?)';

/** Option names whose value is a credential: `--api-key`, `--api_key`, `--token`, `--password`, `--bearer`… */
const SECRET_OPTION_RE = new RegExp(`^--?[A-Za-z0-9_-]*${SECRET_NAME}$`, 'i');

/**
 * Programs whose `-p<value>` (attached, no space) is a password, as MySQL's clients take it.
 * Elsewhere `-p` means other things (`claude -p PROMPT`, `ssh -p PORT`), so it is hidden only here.
 */
const PASSWORD_P_PROGRAMS: ReadonlySet<string> = new Set(['mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mysqlcheck', 'mysqlshow', 'mariadb', 'mariadb-dump', 'mariadb-admin']);

/** A value in free text: a quoted string, or a word up to a quote, space or shell separator. */
const VALUE = `("[^"]*"|'[^']*'|[^\\s"'\`;&|]+)`;

/** In free text: `NAME=value` words (also after `export`, inside a `-c` script). */
const ASSIGNMENT_IN_TEXT_RE = new RegExp(`(^|[\\s"'\`;&|(])([A-Za-z_][A-Za-z0-9_]*)=${VALUE}`, 'g');

/** In free text: a secret-named option and its value, `--api-key VALUE` or `--api-key=VALUE`. */
const OPTION_IN_TEXT_RE = new RegExp(`(^|[\\s"'\`;&|(])(--?[A-Za-z0-9_-]*${SECRET_NAME})(\\s+|=)${VALUE}`, 'gi');

/** In free text: a credential header, `Authorization: Bearer …`, `X-Api-Key: …`, `Cookie: …`; the value runs to a quote or line end. */
const HEADER_IN_TEXT_RE = new RegExp(`(^|[\\s"'\`=])([A-Za-z0-9_-]*(?:${SECRET_NAME}|cookie))(\\s*:\\s*)[^"'\`\\n]+`, 'gi');

/** In free text: an HTTP auth scheme and its credential, `Bearer …`, `Basic …`. */
const SCHEME_IN_TEXT_RE = /\b(Bearer|Basic|Token)(\s+)(?!\*\*\*)[A-Za-z0-9._~+/=-]+/g;

/** In free text: a URL's userinfo, `https://user:pass@host` or `https://TOKEN@host`. */
const USERINFO_IN_TEXT_RE = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/\s@:"'`]*)(?::([^/\s@"'`]*))?@/g;

/** In free text: MySQL's `-p<password>` after one of its programs, in the same simple command. */
const PASSWORD_P_IN_TEXT_RE = new RegExp(`\\b(${[...PASSWORD_P_PROGRAMS].join('|')})\\b([^;&|\\n"'\`]*?\\s)-p(?!\\*\\*\\*)([^\\s"'\`;&|]+)`, 'g');

/** `path/to/prog` → `prog`. */
function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * The argv with every secret replaced by {@link HIDDEN}: environment values, secret option values,
 * credential headers and URL userinfo, also inside words that are scripts (`sh -c '…'`).
 * @example redactArgv(['env', 'ANTHROPIC_API_KEY=sk-1', 'claude', '--api-key', 'x']) // ['env', 'ANTHROPIC_API_KEY=***', 'claude', '--api-key', '***']
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let hideNext = false;
  let passwordP = false;
  for (const word of argv) {
    if (hideNext) {
      out.push(HIDDEN);
      hideNext = false;
      continue;
    }
    const assignment = ASSIGNMENT_RE.exec(word);
    if (assignment !== null) {
      out.push(`${assignment[1]}=${HIDDEN}`);
      continue;
    }
    if (PASSWORD_P_PROGRAMS.has(baseName(word))) passwordP = true;
    if (passwordP && /^-p./s.test(word)) {
      out.push(`-p${HIDDEN}`);
      continue;
    }
    const eq = word.indexOf('=');
    const option = eq < 0 ? word : word.slice(0, eq);
    if (SECRET_OPTION_RE.test(option)) {
      if (eq < 0) hideNext = true;
      out.push(eq < 0 ? word : `${option}=${HIDDEN}`);
      continue;
    }
    out.push(redactText(word));
  }
  return out;
}

/** True if {@link redactArgv} would hide anything in `argv`. */
export function carriesSecret(argv: readonly string[]): boolean {
  const redacted = redactArgv(argv);
  return redacted.some((w, i) => w !== argv[i]);
}

/**
 * Free text (a message that quotes a command, a `-c` script) with the same secrets hidden as
 * {@link redactArgv} hides. It errs towards hiding: `x=1` in a quoted message is hidden too.
 * @example redactText('could not start API_KEY=sk-1: ENOENT; curl --token t') // 'could not start API_KEY=*** ENOENT; curl --token ***' (the value runs to the space)
 */
export function redactText(text: string): string {
  return text
    .replace(USERINFO_IN_TEXT_RE, (_m, scheme: string, user: string, pass: string | undefined) => `${scheme}${pass === undefined ? HIDDEN : `${user}:${HIDDEN}`}@`)
    .replace(HEADER_IN_TEXT_RE, (_m, lead: string, name: string, sep: string) => `${lead}${name}${sep}${HIDDEN}`)
    .replace(SCHEME_IN_TEXT_RE, (_m, scheme: string, sep: string) => `${scheme}${sep}${HIDDEN}`)
    .replace(ASSIGNMENT_IN_TEXT_RE, (_m, lead: string, name: string) => `${lead}${name}=${HIDDEN}`)
    .replace(OPTION_IN_TEXT_RE, (_m, lead: string, name: string, sep: string) => `${lead}${name}${sep}${HIDDEN}`)
    .replace(PASSWORD_P_IN_TEXT_RE, (_m, prog: string, mid: string) => `${prog}${mid}-p${HIDDEN}`);
}
