// A Bash write target that is a plain glob (`src/*.ts`, `pack*.json`) names the files it matches
// when the command runs: expanded here against the file system, the way bash would, so each
// match can be held to the allowlist. Only plain patterns: anything with quotes or `$` is not.
import { readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { compileGlob } from '../core/glob.js';

/** Characters a pattern may hold to be expanded here; anything else (quotes, `$`, `` ` ``, `~`, braces) is left to the classifier. */
const PLAIN_GLOB = /^[A-Za-z0-9._/*?[\]!@%+=:,-]+$/;

/** Matches listed at most: bash would hand them all to the command, but past this the write is refused anyway. */
const MAX_GLOB_MATCHES = 10_000;

/**
 * The paths `pattern` expands to from `cwd`, as bash expands an unquoted word (no dotfiles
 * unless the segment starts with `.`); the pattern itself when nothing matches (bash then
 * uses the word as written). Null when the pattern is not a plain glob, or matches too many.
 * @example expandPlainGlob('pack*.json', '/w') // ['/w/package.json']
 */
export function expandPlainGlob(pattern: string, cwd: string): string[] | null {
  if (!PLAIN_GLOB.test(pattern) || !/[*?[]/.test(pattern)) return null;
  const abs = isAbsolute(pattern) ? pattern : join(cwd, pattern);
  const segments = abs.split('/').filter((s) => s !== '');
  let found = ['/'];
  for (const seg of segments) {
    const next: string[] = [];
    for (const dir of found) {
      if (!/[*?[]/.test(seg)) {
        next.push(join(dir, seg));
        continue;
      }
      const re = compileGlob(seg).re;
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue; // not a folder, or unreadable: nothing matches there
      }
      for (const n of names) if ((seg.startsWith('.') || !n.startsWith('.')) && re.test(n)) next.push(join(dir, n));
    }
    if (next.length > MAX_GLOB_MATCHES) return null;
    found = next;
  }
  return found.length > 0 ? found : [abs];
}
