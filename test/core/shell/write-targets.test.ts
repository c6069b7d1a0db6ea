import { describe, expect, it } from 'vitest';
import { analyzeShell, type WriteTarget } from '../../../src/core/shell/index.js';

const ctx = { cwd: '/w', protectedPaths: [] };

type Expected = Pick<WriteTarget, 'path' | 'via' | 'kind'>;

function targets(cmd: string): Expected[] {
  const a = analyzeShell(cmd, ctx);
  if (!a.parsed) throw new Error(a.reason);
  return a.writeTargets.map(({ path, via, kind }) => ({ path, via, kind }));
}

const w = (path: string, via: string): Expected => ({ path, via, kind: 'write' });
const del = (path: string, via: string): Expected => ({ path, via, kind: 'delete' });
const create = (path: string, via: string): Expected => ({ path, via, kind: 'create' });

describe('write targets: redirections', () => {
  const cases: [string, Expected[]][] = [
    ['echo x > out', [w('out', 'redirect >')]],
    ['echo x >> out', [w('out', 'redirect >>')]],
    ['ls &> all.log', [w('all.log', 'redirect &>')]],
    ['ls &>> all.log', [w('all.log', 'redirect &>>')]],
    ['ls 2> err.log', [w('err.log', 'redirect 2>')]],
    ['ls >| out', [w('out', 'redirect >|')]],
    ['cat <> f', [w('f', 'redirect <>')]],
    ['ls >&out.log', [w('out.log', 'redirect >&')]],
    ['> empty.txt', [w('empty.txt', 'redirect >')]],
    ['{ ls; pwd; } > both.txt', [w('both.txt', 'redirect >')]],
    ['while read l; do echo "$l"; done < in > out', [w('out', 'redirect >')]],
    ['echo x > "a file.txt"', [w('a file.txt', 'redirect >')]],
    ['cat > out <<EOF\nx > not-a-target\nEOF', [w('out', 'redirect >')]],
  ];
  it.each(cases)('%j', (cmd, expected) => {
    expect(targets(cmd)).toEqual(expected);
  });

  const none: string[] = ['ls 2>&1', 'ls >&2', 'ls 1>&2 2>&-', 'ls > /dev/null', 'ls 2>/dev/stderr', 'ls > /dev/stdout', 'ls > /dev/tty', 'ls > /dev/fd/3', 'cat < in', 'cat <<< "x"', 'cat <&3'];
  it.each(none)('finds no target in %j', (cmd) => {
    expect(targets(cmd)).toEqual([]);
  });
});

describe('write targets: commands', () => {
  const cases: [string, Expected[]][] = [
    ['echo x | tee a b', [w('a', 'tee'), w('b', 'tee')]],
    ['tee -a log < in', [w('log', 'tee')]],
    ["sed -i 's/a/b/' f1 f2", [w('f1', 'sed -i'), w('f2', 'sed -i')]],
    ["sed -i.bak -e 's/a/b/' f", [w('f', 'sed -i')]],
    ["sed -Ei 's/a/b/' f", [w('f', 'sed -i')]],
    ["sed --in-place=.orig 's/a/b/' f", [w('f', 'sed -i')]],
    ["perl -pi -e 's/a/b/' f", [w('f', 'perl -i')]],
    ["perl -i.bak -pe 's/a/b/' f g", [w('f', 'perl -i'), w('g', 'perl -i')]],
    ['cp a b', [w('b', 'cp')]],
    ['cp -r src/ dest', [w('dest', 'cp')]],
    ['cp a b dir', [w('dir/a', 'cp'), w('dir/b', 'cp')]],
    ['cp x/a.txt out/', [w('out/a.txt', 'cp')]],
    ['cp -t dir a b', [w('dir/a', 'cp'), w('dir/b', 'cp')]],
    ['cp --target-directory=dir a', [w('dir/a', 'cp')]],
    ['cp -T a b', [w('b', 'cp')]],
    ['mv a b', [del('a', 'mv'), w('b', 'mv')]],
    ['mv a b ..', [del('a', 'mv'), del('b', 'mv'), w('../a', 'mv'), w('../b', 'mv')]],
    ['rm -rf build dist', [del('build', 'rm'), del('dist', 'rm')]],
    ['rm -- -weird', [del('-weird', 'rm')]],
    ['rmdir d', [del('d', 'rmdir')]],
    ['unlink f', [del('f', 'unlink')]],
    ['shred -u -n 3 f', [del('f', 'shred')]],
    ['touch -d yesterday a b', [create('a', 'touch'), create('b', 'touch')]],
    ['mkdir -p -m 755 a/b', [create('a/b', 'mkdir')]],
    ['ln -s target link', [create('link', 'ln')]],
    ['ln -s /x/target', [create('./target', 'ln')]],
    ['ln -t dir a', [create('dir/a', 'ln')]],
    ['install -m 644 a /usr/local/bin/a', [w('/usr/local/bin/a', 'install')]],
    ['install -d a b', [create('a', 'install -d'), create('b', 'install -d')]],
    ['truncate -s 0 f', [w('f', 'truncate')]],
    ['chmod +x f', [w('f', 'chmod')]],
    ['chmod -w f', [w('f', 'chmod')]],
    ['chmod -R 755 d', [w('d', 'chmod')]],
    ['chmod --reference=r f', [w('f', 'chmod')]],
    ['chown user:grp f', [w('f', 'chown')]],
    ['chgrp -R grp d', [w('d', 'chgrp')]],
    ['git checkout -- a b', [w('a', 'git checkout --'), w('b', 'git checkout --')]],
    ['git checkout HEAD~1 -- a', [w('a', 'git checkout --')]],
    ['git restore a', [w('a', 'git restore')]],
    ['git restore --source HEAD -W a', [w('a', 'git restore')]],
    ['git -C sub checkout -- f', [w('sub/f', 'git checkout --')]],
    // One word may be a branch or a path; git restores the path when no branch has that name.
    ['git checkout main', [w('main', 'git checkout')]],
    ['git rm -r old', [del('old', 'git rm')]],
    ['git mv a b', [del('a', 'git mv'), w('b', 'git mv')]],
    ['git diff --output=patch.diff', [w('patch.diff', 'git diff --output')]],
    ['dd if=a of=b bs=1M', [w('b', 'dd of=')]],
    ['curl -o out https://x', [w('out', 'curl -o')]],
    ['curl -sSLo out https://x', [w('out', 'curl -o')]],
    ['curl -H "A: b" --output=out https://x', [w('out', 'curl -o')]],
    ['curl -D headers.txt https://x', [w('headers.txt', 'curl -D')]],
    ['wget -O out https://x', [w('out', 'wget -O')]],
    ['wget -qO out https://x', [w('out', 'wget -O')]],
    ['wget -P downloads https://x', [create('downloads', 'wget -P')]],
    ['patch f < fix.diff', [w('f', 'patch')]],
    ['patch -o out f fix.diff', [w('f', 'patch'), w('out', 'patch -o')]],
    ['tar -xzf a.tgz -C out', [w('out', 'tar -x -C')]],
    ['tar xf a.tar -C out', [w('out', 'tar -x -C')]],
    ['tar --extract --file a.tar --directory=out', [w('out', 'tar -x -C')]],
    ['tar -czf out.tgz src', [w('out.tgz', 'tar -f')]],
    ['unzip a.zip -d out', [w('out', 'unzip -d')]],
    ['sort -o out in', [w('out', 'sort -o')]],
    ['uniq in out', [w('out', 'uniq')]],
    ['find . -fprint list.txt', [w('list.txt', 'find -fprint')]],
    ['find build -delete', [del('build', 'find -delete')]],
    ['sudo tee /etc/hosts', [w('/etc/hosts', 'tee')]],
    ['xargs rm -f', []],
  ];
  it.each(cases)('%j', (cmd, expected) => {
    expect(targets(cmd)).toEqual(expected);
  });

  const none: string[] = [
    'cat a b',
    'grep -r x .',
    "sed 's/a/b/' f",
    'git restore --staged a',
    'git rm --cached a',
    'curl -o - https://x',
    'wget -O- https://x',
    'patch -p1 < fix.diff',
    'tar -xzf a.tgz',
    'tar -tzf a.tgz',
    'cp onlyone',
    'tee',
    'dd if=a of=/dev/null',
  ];
  it.each(none)('finds no target in %j', (cmd) => {
    expect(targets(cmd)).toEqual([]);
  });
});

describe('write targets: flags and resolution', () => {
  it('marks recursive operations', () => {
    const a = analyzeShell('rm -r a; rm b; mv c d; git checkout -- e; chmod -R 700 f', ctx);
    expect(a.writeTargets.map((t) => [t.path, t.recursive])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
      ['d', false],
      ['e', true],
      ['f', true],
    ]);
  });

  it('reports a path with an expansion as written and not literal, and asks', () => {
    const a = analyzeShell('echo x > "$OUT"/log; rm -f ~/x *.tmp', ctx);
    expect(a.writeTargets.map((t) => [t.path, t.literal])).toEqual([
      ['"$OUT"/log', false],
      ['~/x', false],
      ['*.tmp', false],
    ]);
    expect(a.class).toBe('ask');
  });

  it('resolves relative targets against a directory reached with cd', () => {
    expect(targets('cd sub && echo x > f; cd ../other; touch g')).toEqual([w('/w/sub/f', 'redirect >'), create('/w/other/g', 'touch')]);
  });

  it('keeps relative paths as written while the directory is unchanged', () => {
    expect(targets('cd . && echo x > ../f')).toEqual([w('../f', 'redirect >')]);
  });

  it('marks relative targets after a cd that cannot be followed as not literal', () => {
    const a = analyzeShell('cd "$D" && touch f /abs/g', ctx);
    expect(a.writeTargets.map((t) => [t.path, t.literal])).toEqual([
      ['f', false],
      ['/abs/g', true],
    ]);
  });

  it('finds targets inside substitutions, sh -c scripts and find -exec', () => {
    expect(targets(`echo $(echo x > a) && sh -c 'touch b' && find . -exec rm {} \\;`)).toEqual([w('a', 'redirect >'), create('b', 'touch'), del('{}', 'rm')]);
  });
});
