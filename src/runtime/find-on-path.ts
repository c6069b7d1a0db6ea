// Finding a program the way a shell would, done up front so a missing one is a clear message.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** True when `path` is a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** An absolute path to an executable `name` in an absolute directory of `env.PATH`, or null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const file = join(dir, name);
    if (isExecutableFile(file)) return file;
  }
  return null;
}

/**
 * Why `cmd` cannot be started from `cwd` with `env`'s PATH (not found, not executable), or null
 * when it can. Asked before a sandbox starts it: inside, bwrap would only say "execvp: No such file".
 */
export function programProblem(cmd: string, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const path = cmd.includes('/') ? resolve(cwd, cmd) : findOnPath(cmd, env);
  if (path === null || !existsSync(path)) return `${cmd}: command not found (check the name and PATH)`;
  if (!isExecutableFile(path)) return `${cmd} is not executable (chmod +x, or run it through its interpreter)`;
  return null;
}
