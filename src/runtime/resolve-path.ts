// Resolves the path a write would really touch: every symlink followed (in the file
// and in any parent, dangling links and links to links included), as an absolute real path.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { fail, ok, type Result } from '../core/result.js';

/** Same bound as the kernel's ELOOP limit: a longer chain of links is refused. */
const MAX_LINK_HOPS = 40;

/**
 * Returns the real absolute path that writing `target` (relative to `cwd`) would touch,
 * even when the file, or some of its parent folders, do not exist yet.
 * @example resolveWriteTarget('src/a.ts', '/repo') // { ok: true, value: '/repo/src/a.ts' }
 */
export function resolveWriteTarget(target: string, cwd: string): Result<string> {
  if (target.length === 0) return fail('the target path is empty');
  if (target.includes('\0') || cwd.includes('\0')) return fail('the target path contains a NUL byte');
  if (!isAbsolute(cwd) && !isAbsolute(target)) return fail(`cannot resolve ${JSON.stringify(target)}: no absolute working folder`);
  return realOf(resolve(cwd, target), 0);
}

/** The real path of an existing `p`, else null (a missing or unreadable path). */
export function realPathOrNull(p: string): string | null {
  try {
    return realpathSync.native(p);
  } catch {
    return null;
  }
}

function realOf(abs: string, hops: number): Result<string> {
  try {
    return ok(realpathSync.native(abs));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return fail(`cannot resolve ${JSON.stringify(abs)} (${code ?? 'error'})`);
  }
  // Something on the way does not exist. Is `abs` itself a dangling symlink?
  let isLink = false;
  try {
    isLink = lstatSync(abs).isSymbolicLink();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return fail(`cannot resolve ${JSON.stringify(abs)} (${code ?? 'error'})`);
  }
  const parent = dirname(abs);
  if (parent === abs) return fail(`cannot resolve ${JSON.stringify(abs)}`);
  const realParent = realOf(parent, hops);
  if (!realParent.ok) return realParent;
  if (isLink) {
    // A write through a dangling link creates the link's target: follow it.
    if (hops >= MAX_LINK_HOPS) return fail(`too many levels of symbolic links at ${JSON.stringify(abs)}`);
    let linkText: string;
    try {
      linkText = readlinkSync(abs);
    } catch (err) {
      return fail(`cannot read the link ${JSON.stringify(abs)} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return realOf(resolve(realParent.value, linkText), hops + 1);
  }
  return ok(resolve(realParent.value, basename(abs)));
}
