import { describe, expect, it } from 'vitest';
import { patchTargets, patchWritePaths } from '../../../src/adapters/codex/patch.js';
import type { PatchTarget } from '../../../src/adapters/codex/patch.js';

/** A patch from its lines, joined the way a model writes them. */
function patch(...lines: string[]): string {
  return lines.join('\n');
}

/** The targets of a patch that must parse. */
function targetsOf(text: string): PatchTarget[] {
  const result = patchTargets(text);
  if (!result.ok) throw new Error(`expected a patch, got: ${result.reason}`);
  return result.value;
}

/** The reason a patch that must be refused is refused. */
function refusalOf(text: string): string {
  const result = patchTargets(text);
  if (result.ok) throw new Error(`expected a refusal, got: ${JSON.stringify(result.value)}`);
  return result.reason;
}

describe('patchTargets', () => {
  it('reads an Add File hunk as an add of its path', () => {
    expect(targetsOf(patch('*** Begin Patch', '*** Add File: path/to/new.txt', '+line one', '+line two', '*** End Patch'))).toEqual([{ op: 'add', path: 'path/to/new.txt' }]);
  });

  it('reads an Add File hunk with no lines as an empty new file', () => {
    expect(targetsOf(patch('*** Begin Patch', '*** Add File: empty.txt', '*** Delete File: old.txt', '*** End Patch'))).toEqual([
      { op: 'add', path: 'empty.txt' },
      { op: 'delete', path: 'old.txt' },
    ]);
  });

  it('reads a Delete File hunk as a delete of its path', () => {
    expect(targetsOf(patch('*** Begin Patch', '*** Delete File: obsolete.txt', '*** End Patch'))).toEqual([{ op: 'delete', path: 'obsolete.txt' }]);
  });

  it('reads an Update File hunk as an update of its path', () => {
    expect(targetsOf(patch('*** Begin Patch', '*** Update File: src/app.py', '@@ def greet():', '-print("Hi")', '+print("Hello")', '*** End Patch'))).toEqual([{ op: 'update', path: 'src/app.py' }]);
  });

  it('reports the destination of an update that also renames', () => {
    expect(targetsOf(patch('*** Begin Patch', '*** Update File: src/app.py', '*** Move to: src/main.py', '@@', '-a', '+b', '*** End Patch'))).toEqual([
      { op: 'update', path: 'src/app.py', move_to: 'src/main.py' },
    ]);
  });

  it('lists every hunk of a patch in order', () => {
    const text = patch(
      '*** Begin Patch',
      '*** Add File: path/to/new.txt',
      '+line one',
      '*** Update File: src/app.py',
      '*** Move to: src/main.py',
      '@@ def greet():',
      '-print("Hi")',
      '+print("Hello")',
      '*** Delete File: obsolete.txt',
      '*** Update File: README.md',
      ' context',
      '+added',
      '*** End Patch',
    );
    expect(targetsOf(text)).toEqual([
      { op: 'add', path: 'path/to/new.txt' },
      { op: 'update', path: 'src/app.py', move_to: 'src/main.py' },
      { op: 'delete', path: 'obsolete.txt' },
      { op: 'update', path: 'README.md' },
    ]);
  });

  it('reads several chunks, blank lines between them and an End of File marker within one update', () => {
    const text = patch(
      '*** Begin Patch',
      '*** Update File: a.ts',
      '@@ class A',
      ' keep',
      '-old',
      '+new',
      '',
      '@@ class B',
      '',
      '-x',
      '+y',
      '*** End of File',
      '*** Add File: b.ts',
      '+b',
      '*** End Patch',
    );
    expect(targetsOf(text)).toEqual([
      { op: 'update', path: 'a.ts' },
      { op: 'add', path: 'b.ts' },
    ]);
  });

  it.each(['<<EOF', "<<'EOF'", '<<"EOF"'])('unwraps the %s heredoc that Codex strips in lenient mode', (opener) => {
    const text = patch(opener, '*** Begin Patch', '*** Delete File: gone.txt', '*** End Patch', 'EOF', '');
    expect(targetsOf(text)).toEqual([{ op: 'delete', path: 'gone.txt' }]);
  });

  it.each([
    ['a shell command around the heredoc', "apply_patch <<'EOF'"],
    ['mismatched quotes', `<<"EOF'`],
    ['another delimiter', "<<'PATCH'"],
  ])('refuses a heredoc wrapper Codex does not strip: %s', (_name, opener) => {
    const text = patch(opener, '*** Begin Patch', '*** Delete File: gone.txt', '*** End Patch', 'EOF');
    expect(refusalOf(text)).toMatch(/first line/);
  });

  it('reads a CRLF patch the way Rust str::lines does', () => {
    const text = ['*** Begin Patch', '*** Update File: win.txt', '*** Move to: moved.txt', '@@', '-a', '+b', '*** Add File: c.txt', '+c', '*** End Patch', ''].join('\r\n');
    expect(targetsOf(text)).toEqual([
      { op: 'update', path: 'win.txt', move_to: 'moved.txt' },
      { op: 'add', path: 'c.txt' },
    ]);
  });

  it('tolerates whitespace around the text, the markers and the file headers', () => {
    const text = patch('  ', ' *** Begin Patch ', '  *** Add File: a.txt  ', '+x', '\t*** Delete File: b.txt\t', ' *** End Patch ', '', '');
    expect(targetsOf(text)).toEqual([
      { op: 'add', path: 'a.txt' },
      { op: 'delete', path: 'b.txt' },
    ]);
  });

  it('trims paths with Rust whitespace, not JavaScript whitespace', () => {
    // U+0085 is whitespace to Rust (Codex writes "a.txt") but not to String.prototype.trim;
    // U+FEFF is the reverse (Codex writes a file whose name ends in it).
    const text = patch('*** Begin Patch', '*** Add File: a.txt\u0085', '+x', '*** Add File: b.txt\uFEFF', '+y', '*** End Patch');
    expect(targetsOf(text)).toEqual([
      { op: 'add', path: 'a.txt' },
      { op: 'add', path: 'b.txt\uFEFF' },
    ]);
  });

  it('keeps the spaces after the header marker, as Codex strips only the marker', () => {
    expect(targetsOf(patch('*** Begin Patch', '*** Delete File:   spaced.txt', '*** End Patch'))).toEqual([{ op: 'delete', path: '  spaced.txt' }]);
  });

  it('returns paths as written, relative or absolute', () => {
    expect(targetsOf(patch('*** Begin Patch', '*** Delete File: /etc/hosts', '*** Delete File: ../outside.txt', '*** End Patch'))).toEqual([
      { op: 'delete', path: '/etc/hosts' },
      { op: 'delete', path: '../outside.txt' },
    ]);
  });

  it('keeps a path with spaces and non-ASCII letters whole', () => {
    const text = patch('*** Begin Patch', '*** Update File: docs/my notes/résumé 日本.md', '*** Move to: docs/archive/naïve file.md', '@@', '-a', '+b', '*** End Patch');
    expect(targetsOf(text)).toEqual([{ op: 'update', path: 'docs/my notes/résumé 日本.md', move_to: 'docs/archive/naïve file.md' }]);
  });

  it('refuses text that does not start with *** Begin Patch', () => {
    expect(refusalOf(patch('*** Add File: a.txt', '+x', '*** End Patch'))).toMatch(/first line.*\*\*\* Begin Patch/);
  });

  it('refuses text that does not end with *** End Patch', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Add File: a.txt', '+x'))).toMatch(/last line.*\*\*\* End Patch/);
  });

  it.each([
    ['empty text', ''],
    ['only whitespace', ' \n\t\n'],
    ['a lone Begin marker', '*** Begin Patch'],
  ])('refuses %s', (_name, text) => {
    expect(patchTargets(text).ok).toBe(false);
  });

  it('refuses a patch that names no file, as Codex refuses to apply it', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** End Patch'))).toMatch(/no file/);
  });

  it.each([
    ['Add File', '*** Add File: '],
    ['Delete File', '*** Delete File:'],
    ['Update File', '*** Update File:   '],
  ])('refuses a %s header without a path', (_name, header) => {
    expect(refusalOf(patch('*** Begin Patch', header, '*** End Patch'))).toMatch(/no path/);
  });

  it('refuses a Move to line without a path', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Update File: a.txt', '*** Move to: ', '@@', '-a', '+b', '*** End Patch'))).toMatch(/no path/);
  });

  it('refuses an added file with a line that does not start with +', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Add File: a.txt', '+one', 'two', '*** End Patch'))).toMatch(/line 4/);
  });

  it('refuses an added-file line indented before its +', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Add File: a.txt', '+one', ' +two', '*** End Patch'))).toMatch(/line 4/);
  });

  it('reports a file header inside an added file, even indented, because Codex starts a new file there', () => {
    const text = patch('*** Begin Patch', '*** Add File: a.txt', '+one', '  *** Add File: sneaky.txt', '+two', '*** End Patch');
    expect(targetsOf(text)).toEqual([
      { op: 'add', path: 'a.txt' },
      { op: 'add', path: 'sneaky.txt' },
    ]);
  });

  it('keeps a + line that looks like a header as content of the added file', () => {
    const text = patch('*** Begin Patch', '*** Add File: docs.md', '+*** Add File: example.txt', '+*** Delete File: other.txt', '*** End Patch');
    expect(targetsOf(text)).toEqual([{ op: 'add', path: 'docs.md' }]);
  });

  it('reports a file header that follows an update chunk', () => {
    const text = patch('*** Begin Patch', '*** Update File: a.txt', '@@', '-a', '+b', '*** Delete File: b.txt', '*** End Patch');
    expect(targetsOf(text)).toEqual([
      { op: 'update', path: 'a.txt' },
      { op: 'delete', path: 'b.txt' },
    ]);
  });

  it('keeps context lines that start with * after their space, like a doc comment', () => {
    const text = patch('*** Begin Patch', '*** Update File: a.ts', '@@ /**', ' * Says hello.', '- * @param x old', '+ * @param x new', ' */', '*** End Patch');
    expect(targetsOf(text)).toEqual([{ op: 'update', path: 'a.ts' }]);
  });

  it('refuses an indented file header between chunks, which Codex reads as a chunk without @@', () => {
    const text = patch('*** Begin Patch', '*** Update File: a.txt', '@@', '-a', '+b', '*** End of File', '\t*** Delete File: b.txt', '*** End Patch');
    expect(refusalOf(text)).toMatch(/line 7/);
  });

  it('refuses an update with no chunk of changes', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Update File: a.txt', '*** End Patch'))).toMatch(/a\.txt/);
  });

  it('refuses an update that only renames', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Update File: a.txt', '*** Move to: b.txt', '*** Delete File: c.txt', '*** End Patch'))).toMatch(/a\.txt/);
  });

  it('refuses a chunk header with no lines under it', () => {
    expect(patchTargets(patch('*** Begin Patch', '*** Update File: a.txt', '@@ fn main', '*** End Patch')).ok).toBe(false);
  });

  it('refuses a second chunk that does not start with @@', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Update File: a.txt', '@@', '-a', 'stray', '*** End Patch'))).toMatch(/@@/);
  });

  it('refuses a chunk line that is not context, removal or addition', () => {
    expect(patchTargets(patch('*** Begin Patch', '*** Update File: a.txt', '@@', 'oops', '*** End Patch')).ok).toBe(false);
  });

  it.each([
    ['an unknown header', '*** Rename File: a.txt'],
    ['a misspelt header', '*** add file: a.txt'],
    ['an End of File marker outside a chunk', '*** End of File'],
  ])('refuses %s', (_name, header) => {
    expect(refusalOf(patch('*** Begin Patch', header, '*** End Patch'))).toMatch(/not a file header/);
  });

  it('refuses an End Patch marker before the end', () => {
    const text = patch('*** Begin Patch', '*** Add File: a.txt', '+x', '*** End Patch', '*** Add File: b.txt', '+y', '*** End Patch');
    expect(patchTargets(text).ok).toBe(false);
  });

  it('refuses a blank line between file hunks', () => {
    expect(patchTargets(patch('*** Begin Patch', '*** Delete File: a.txt', '', '*** Delete File: b.txt', '*** End Patch')).ok).toBe(false);
  });

  it('refuses a patch aimed at another Codex environment', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Environment ID: remote', '*** Delete File: a.txt', '*** End Patch'))).toMatch(/another Codex environment/);
  });

  // Codex versions disagree on the cases below, so the gate cannot know which path would be written.

  it('refuses a move destination with trailing whitespace', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Update File: a.txt', '*** Move to: b.txt  ', '@@', '-a', '+b', '*** End Patch'))).toMatch(/whitespace/);
  });

  it('refuses an indented Move to line', () => {
    expect(refusalOf(patch('*** Begin Patch', '*** Update File: a.txt', '  *** Move to: b.txt', '@@', '-a', '+b', '*** End Patch'))).toMatch(/Move to/);
  });

  it('refuses a context line that is an indented file header', () => {
    const text = patch('*** Begin Patch', '*** Update File: a.txt', '@@', ' *** Add File: sneaky.txt', '-a', '+b', '*** End Patch');
    expect(refusalOf(text)).toMatch(/line 4/);
  });
});

describe('patchWritePaths', () => {
  it('lists each path and move destination once, in order of first mention', () => {
    const targets: PatchTarget[] = [
      { op: 'update', path: 'a.txt', move_to: 'b.txt' },
      { op: 'add', path: 'c.txt' },
      { op: 'delete', path: 'a.txt' },
      { op: 'update', path: 'd.txt', move_to: 'c.txt' },
      { op: 'add', path: 'b.txt' },
    ];
    expect(patchWritePaths(targets)).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
  });

  it('keeps paths that differ only in spelling apart, leaving resolution to the caller', () => {
    expect(
      patchWritePaths([
        { op: 'add', path: 'a.txt' },
        { op: 'add', path: './a.txt' },
      ]),
    ).toEqual(['a.txt', './a.txt']);
  });

  it('returns the paths of a parsed patch', () => {
    const text = patch('*** Begin Patch', '*** Update File: src/app.py', '*** Move to: src/main.py', '@@', '-a', '+b', '*** Delete File: src/app.py', '*** End Patch');
    expect(patchWritePaths(targetsOf(text))).toEqual(['src/app.py', 'src/main.py']);
  });
});
