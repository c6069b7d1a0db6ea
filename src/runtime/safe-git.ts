// Runs git on a worktree the agent could write to: with every setting that would make git run a
// program, trust a cache or fetch forced off, and the variables that would redirect it dropped.

/** Largest git output read by default: the index listing of a monorepo with ~2 million files. */
const GIT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/**
 * Settings that would make git run a program, trust a cache or reach a remote (fsmonitor,
 * hooks, the untracked cache, a lazy fetch through an agent-written `core.sshCommand`) are
 * forced off on the command line, which outranks every config file. Callers use only
 * commands that read no worktree file through a filter or textconv.
 */
const HARDENED_CONFIG = ['core.fsmonitor=false', 'core.hooksPath=/dev/null', 'core.untrackedCache=false', 'protocol.allow=never'];

/**
 * Inherited variables that would point git at another repository, index, object store or
 * pathspec mode, or inject config (set, for instance, when Gatehouse runs inside a git hook).
 */
const GIT_ENV_DROPPED =
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|NAMESPACE|PREFIX|[A-Z]*_PATHSPECS|CONFIG|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|REPLACE_REF_BASE|EXTERNAL_DIFF)$/;

/** One git run: its exit code (127 when it did not run or its output went over the cap), stdout and stderr. */
export type GitRun = { code: number; stdout: Buffer; stderr: string };

/**
 * Runs `git <args>` in `cwd`, hardened. `readHooksPath` leaves `core.hooksPath` unforced, to read
 * its value (reading runs nothing); `maxBytes` caps stdout.
 * @example const r = await safeGit(worktree, ['cat-file', '-s', `${head}:./src/a.ts`])
 */
export async function safeGit(cwd: string, args: string[], opts: { readHooksPath?: boolean; maxBytes?: number } = {}): Promise<GitRun> {
  // Loaded at the first run, not with the module: a refused write's hook imports the scope
  // modules but runs no git, and node:child_process (with net and dgram) costs it 2–3 ms.
  const { execFile } = await import('node:child_process');
  const config = HARDENED_CONFIG.filter((c) => !(opts.readHooksPath && c.startsWith('core.hooksPath=')));
  const hardened = [...config.flatMap((c) => ['-c', c]), '--no-replace-objects'];
  const env: NodeJS.ProcessEnv = { GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_NO_LAZY_FETCH: '1' };
  for (const [k, v] of Object.entries(process.env)) if (!GIT_ENV_DROPPED.test(k) && !(k in env)) env[k] = v;
  return new Promise((done) => {
    execFile('git', [...hardened, ...args], { cwd, env, encoding: 'buffer', maxBuffer: opts.maxBytes ?? GIT_MAX_OUTPUT_BYTES }, (err, stdout, stderr) => {
      // No exit code (git not installed, output over the limit): 127, Node's message as stderr.
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 127;
      done({ code, stdout, stderr: err !== null && code === 127 ? err.message : stderr.toString('utf8') });
    });
  });
}
