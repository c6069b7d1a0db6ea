// Finding a program the way a shell would, done up front so a missing one is a clear message.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

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
