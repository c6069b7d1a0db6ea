// Hides the secrets a command line may carry before it is shown, sent or logged: the values of
// environment assignments (`KEY=value`, as `env` takes them) and of secret-named options.

/** What a hidden value is shown as: says that something was there without saying what. */
export const HIDDEN = '***';

/** `NAME=value` as `env` and shells take it; `--opt=value` is not one (it starts with a dash). */
const ASSIGNMENT_RE = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/s;

/** Option names whose value is a credential: `--api-key`, `--token`, `--client-secret`, `--password`, `--auth`… */
const SECRET_OPTION_RE = /^--?[A-Za-z0-9-]*(?:key|token|secret|passw(?:or)?d|auth|credentials?)$/i;

/** In free text (an error message): `NAME=value` words. */
const ASSIGNMENT_IN_TEXT_RE = /(^|[\s"'`])([A-Za-z_][A-Za-z0-9_]*)=([^\s"'`]+)/g;

/** True if `word` is an environment assignment with a value. */
export function isEnvAssignment(word: string): boolean {
  return ASSIGNMENT_RE.test(word);
}

/**
 * The argv with every environment value and secret option value replaced by {@link HIDDEN}.
 * @example redactArgv(['env', 'ANTHROPIC_API_KEY=sk-1', 'claude', '--api-key', 'x']) // ['env', 'ANTHROPIC_API_KEY=***', 'claude', '--api-key', '***']
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let hideNext = false;
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
    const eq = word.indexOf('=');
    const option = eq < 0 ? word : word.slice(0, eq);
    if (SECRET_OPTION_RE.test(option)) {
      if (eq < 0) hideNext = true;
      out.push(eq < 0 ? word : `${option}=${HIDDEN}`);
      continue;
    }
    out.push(word);
  }
  return out;
}

/** True if {@link redactArgv} would hide anything in `argv`. */
export function carriesSecret(argv: readonly string[]): boolean {
  const redacted = redactArgv(argv);
  return redacted.some((w, i) => w !== argv[i]);
}

/**
 * Free text (a message that quotes a command) with `NAME=value` values hidden.
 * @example redactText('command not found: "API_KEY=sk-1"') // 'command not found: "API_KEY=***"'
 */
export function redactText(text: string): string {
  return text.replace(ASSIGNMENT_IN_TEXT_RE, (_m, lead: string, name: string) => `${lead}${name}=${HIDDEN}`);
}
