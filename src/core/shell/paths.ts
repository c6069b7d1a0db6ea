// POSIX path arithmetic for write targets: join against a working directory and normalise
// `.`, `..` and repeated slashes, without touching the file system (symlinks are runtime's job).

/** Something normalising changes: `//`, a `.` or `..` segment, or a trailing slash. */
const NOT_NORMAL = /\/\/|\/\.\.?(\/|$)|^\.\.?(\/|$)|.\/$/;

/**
 * Normalises an absolute `/`-separated path: collapses `//`, drops `.`, resolves `..`
 * (never above `/`) and removes a trailing slash.
 * @example normalizePath('/a/b/../c/.//d/') // '/a/c/d'
 */
export function normalizePath(p: string): string {
  if (p.startsWith('/') && !NOT_NORMAL.test(p)) return p;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

/**
 * Resolves `p` against `cwd` (absolute); null when `p` is relative and `cwd` is unknown.
 * @example resolvePath('/w', '../x') // '/x'
 */
export function resolvePath(cwd: string | null, p: string): string | null {
  if (p.startsWith('/')) return normalizePath(p);
  if (cwd === null) return null;
  return normalizePath(`${cwd}/${p}`);
}

/** The last segment of `p`, ignoring trailing slashes. */
export function baseName(p: string): string {
  if (!p.includes('/')) return p;
  const trimmed = p.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/**
 * Normalises a path that may be relative: collapses `//`, drops `.` segments and resolves `..`
 * where a named segment precedes it; leading `..` and a leading `/` are kept.
 * @example normalizeRelative('./dist/./x/..//cli.js') // 'dist/cli.js'
 */
export function normalizeRelative(p: string): string {
  if (p !== '' && !NOT_NORMAL.test(p)) return p;
  const absolute = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg === '..' && absolute) continue;
    else out.push(seg);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined === '' ? '.' : joined;
}
