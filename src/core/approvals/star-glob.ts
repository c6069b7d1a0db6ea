// The `*`-only glob used for command lines and other free text: `*` matches any run
// of characters (spaces and `/` included), everything else is literal.

/**
 * Compiles a `*`-only glob to an anchored RegExp: the whole text must match.
 * No `?`, `[…]` or `{…}`: commands are full of those characters and mean them literally.
 * @example compileStarGlob('git log *').test('git log --oneline -5') // true
 */
export function compileStarGlob(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  // `s` so `*` also crosses newlines in multi-line commands; `u` to match by code point.
  return new RegExp(`^${body}$`, 'su');
}
