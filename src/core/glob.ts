// Path globs for the allowlist, compiled once to a RegExp. `**` crosses `/`, `*` and
// `?` do not, `{a,b}` and `[abc]` work as in a shell, and a trailing `/` means the whole folder.

/** A compiled allow pattern. */
export interface CompiledGlob {
  source: string;
  re: RegExp;
}

const REGEX_SPECIAL = new Set(['.', '+', '^', '$', '(', ')', '|', '\\', '{', '}', '[', ']']);

/**
 * Compiles a worktree-relative glob. Matching is against `/`-separated relative paths.
 * @example compileGlob('src/**').re.test('src/a/b.ts') // true
 */
export function compileGlob(pattern: string): CompiledGlob {
  let p = pattern.trim();
  while (p.startsWith('./')) p = p.slice(2);
  if (p.endsWith('/')) p += '**';
  let re = '';
  let braceDepth = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') {
      if (p[i + 1] === '*') {
        const atStart = i === 0 || p[i - 1] === '/';
        const atEnd = i + 2 === p.length || p[i + 2] === '/';
        if (atStart && atEnd) {
          // `**/` matches zero or more whole folders; a final `**` matches everything below.
          if (i + 2 === p.length) re += '.*';
          else {
            re += '(?:.*/)?';
            i += 1; // skip the slash too (loop adds one more)
          }
          i += 1;
          continue;
        }
        re += '[^/]*';
        i += 1;
        continue;
      }
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const close = p.indexOf(']', i + 2);
      if (close === -1) {
        re += '\\[';
        continue;
      }
      let body = p.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      body = body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]');
      re += negate ? `[^/${body}]` : `[${body}]`;
      i = close;
    } else if (c === '{') {
      braceDepth++;
      re += '(?:';
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      re += ')';
    } else if (c === ',' && braceDepth > 0) {
      re += '|';
    } else if (REGEX_SPECIAL.has(c)) {
      re += `\\${c}`;
    } else {
      re += c;
    }
  }
  if (braceDepth > 0) {
    // Unbalanced brace: treat the whole pattern literally rather than guess.
    return { source: pattern, re: new RegExp(`^${escapeRegex(p)}$`, 'u') };
  }
  return { source: pattern, re: new RegExp(`^${re}$`, 'u') };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True if the `/`-separated relative path matches any of the globs. */
export function matchesAny(relPath: string, globs: readonly CompiledGlob[]): boolean {
  for (const g of globs) if (g.re.test(relPath)) return true;
  return false;
}
