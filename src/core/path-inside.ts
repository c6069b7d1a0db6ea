// Containment of one absolute path in another, by string alone: callers resolve symlinks
// and normalise first (runtime/), so this stays pure.

/**
 * True if `p` is `root` or inside it (both absolute, normalised, `/`-separated).
 * @example isInside('/repo', '/repo/src/a.ts') // true; isInside('/repo', '/repo2') // false
 */
export function isInside(root: string, p: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return p.startsWith(prefix);
}

/**
 * True if `p` is one of `roots` or inside one.
 * @example isInsideAny(['/repo/src', '/tmp'], '/repo/src/a.ts') // true
 */
export function isInsideAny(roots: readonly string[], p: string): boolean {
  return roots.some((r) => isInside(r, p));
}

/**
 * Path of `p` relative to `root`, `/`-separated; `p` must be inside `root`.
 * @example relativeInside('/repo', '/repo/src/a.ts') // 'src/a.ts'; relativeInside('/repo', '/repo') // ''
 */
export function relativeInside(root: string, p: string): string {
  if (p === root) return '';
  return p.slice(root.endsWith('/') ? root.length : root.length + 1);
}
