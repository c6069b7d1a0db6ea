// Finds the files a simple command would write, create or delete: output redirections and the
// file arguments of coreutils-style commands. Tool-specific readers live in write-targets-tools.ts.
import type { Redirect, Word } from './ast.js';
import { commandName, hasOption, optionValues, parseArgs, type OptionSpec } from './command-line.js';
import { baseName } from './paths.js';
import { alsoJudged, isStreamPath, literalWord, target, type FoundTarget, type WriteTarget } from './write-target.js';
import { TOOL_TARGETS } from './write-targets-tools.js';

/** Redirection operators that write their target file. */
const WRITING_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

/**
 * The files output redirections write. `>&2`, `2>&1`, `>&-` and stream paths are not files.
 * @example redirectTargets(parse('echo x > out 2>&1')) // [{path: 'out', via: 'redirect >'}]
 */
export function redirectTargets(redirects: readonly Redirect[]): FoundTarget[] {
  const out: FoundTarget[] = [];
  for (const r of redirects) {
    // `>&word` writes a file unless the word is a descriptor number or `-`; `<&` only duplicates.
    if (r.op === '>&') {
      if (r.target.literal && /^(\d+-?|-)$/.test(r.target.value)) continue;
    } else if (!WRITING_REDIRECTS.has(r.op)) continue;
    if (r.target.literal && isStreamPath(r.target.value)) continue;
    out.push(target(r.target, `redirect ${r.fd ?? ''}${r.op}`, 'write'));
  }
  return out;
}

type Reader = (args: Word[]) => FoundTarget[];

/** Positional arguments of a command that takes only files, each as one kind of target. */
function filesOf(via: string, kind: WriteTarget['kind'], spec: OptionSpec = {}, recursiveFlags: string[] = []): Reader {
  return (args) => {
    const parsed = parseArgs(args, spec);
    const recursive = recursiveFlags.length > 0 && hasOption(parsed, ...recursiveFlags);
    return parsed.positionals.map((w) => target(w, via, kind, recursive));
  };
}

/** True if a destination names a folder for sure: a trailing `/`, `.` or `..`. */
function isFolderSyntax(w: Word): boolean {
  return /(^|\/)\.{1,2}$|\/$/.test(w.value);
}

/** cp, mv, install and ln: `SRC DEST`, `SRC… DIR/`, or `-t DIR SRC…`; a folder destination receives each source's base name. */
function copyLike(via: string, kind: WriteTarget['kind'], spec: OptionSpec, moveSources: boolean): Reader {
  return (args) => {
    const parsed = parseArgs(args, spec);
    const dirs = optionValues(parsed, '-t', '--target-directory');
    let sources = parsed.positionals;
    let dest: Word | null = dirs[dirs.length - 1] ?? null;
    if (!dest) {
      if (sources.length < (via === 'ln' ? 1 : 2)) return [];
      dest = sources.length === 1 ? literalWord('.') : sources[sources.length - 1]!;
      sources = sources.length === 1 ? sources : sources.slice(0, -1);
    }
    // Names only known at run time (`xargs cp -t DIR`) can be anything inside the folder.
    if (sources.length === 0) return [alsoJudged(target(dest, via, kind, true))];
    const intoFolder = dirs.length > 0 || sources.length > 1 || isFolderSyntax(dest) || (via === 'ln' && parsed.positionals.length === 1);
    const noFolder = hasOption(parsed, '-T', '--no-target-directory');
    // A moved or recursively copied source is a whole tree where it lands.
    const tree = moveSources || hasOption(parsed, '-r', '-R', '-a', '--recursive', '--archive');
    const inside = (s: Word): FoundTarget => target(s.literal ? { ...s, value: baseName(s.value) } : s, via, kind, tree, dest);
    const out: FoundTarget[] = [];
    if (moveSources) for (const s of sources) out.push(target(s, via, 'delete', true));
    if (!intoFolder || noFolder) {
      // Without -T a destination that exists as a folder is not replaced: the source goes inside it.
      out.push(target(dest, via, kind, tree && noFolder));
      // The destination may be an existing folder, which then receives the source inside it.
      if (!noFolder) out.push(alsoJudged(inside(sources[0]!)));
    } else for (const s of sources) out.push(inside(s));
    return out;
  };
}

/** chmod MODE FILE…: the mode may itself start with `-` (`chmod -w f`), so options are only `-c -f -v -R` and long ones. */
function chmodTargets(args: Word[]): FoundTarget[] {
  let mode = false;
  let recursive = false;
  const files: Word[] = [];
  let options = true;
  for (const w of args) {
    const v = w.value;
    if (options && v === '--') options = false;
    else if (options && v.startsWith('--')) {
      if (v.startsWith('--reference')) mode = true;
      if (v === '--recursive') recursive = true;
    } else if (options && /^-[cfvR]+$/.test(v)) recursive ||= v.includes('R');
    else if (!mode) mode = true;
    else files.push(w);
  }
  return files.map((w) => target(w, 'chmod', 'write', recursive));
}

/** chown/chgrp OWNER FILE… (or `--reference=F FILE…`). */
function ownerTargets(via: string): Reader {
  return (args) => {
    const parsed = parseArgs(args, { longWithValue: ['--from'] });
    const recursive = hasOption(parsed, '-R', '--recursive');
    const files = hasOption(parsed, '--reference') ? parsed.positionals : parsed.positionals.slice(1);
    return files.map((w) => target(w, via, 'write', recursive));
  };
}

/** `dd of=FILE`. */
function ddTargets(args: Word[]): FoundTarget[] {
  return args.filter((w) => w.value.startsWith('of=')).map((w) => target({ ...w, text: w.text.replace(/^of=/, ''), value: w.value.slice(3) }, 'dd of=', 'write'));
}

/** Readers for the commands whose file arguments are easy to find. */
const READERS: Record<string, Reader> = {
  tee: filesOf('tee', 'write'),
  rm: filesOf('rm', 'delete', {}, ['-r', '-R', '--recursive']),
  rmdir: filesOf('rmdir', 'delete'),
  unlink: filesOf('unlink', 'delete'),
  shred: filesOf('shred', 'delete', { shortWithValue: 'ns', longWithValue: ['--iterations', '--size', '--random-source'] }),
  touch: filesOf('touch', 'create', { shortWithValue: 'dtr', longWithValue: ['--date', '--reference', '--time'] }),
  mkdir: filesOf('mkdir', 'create', { shortWithValue: 'm', longWithValue: ['--mode'] }),
  truncate: filesOf('truncate', 'write', { shortWithValue: 'sr', longWithValue: ['--size', '--reference'] }),
  cp: copyLike('cp', 'write', { shortWithValue: 'tS', longWithValue: ['--target-directory', '--suffix'] }, false),
  mv: copyLike('mv', 'write', { shortWithValue: 'tS', longWithValue: ['--target-directory', '--suffix'] }, true),
  ln: copyLike('ln', 'create', { shortWithValue: 'tS', longWithValue: ['--target-directory', '--suffix'] }, false),
  install: (args) => {
    const spec: OptionSpec = { shortWithValue: 'mogSt', longWithValue: ['--mode', '--owner', '--group', '--suffix', '--target-directory', '--strip-program'] };
    const parsed = parseArgs(args, spec);
    if (hasOption(parsed, '-d', '--directory')) return parsed.positionals.map((w) => target(w, 'install -d', 'create'));
    return copyLike('install', 'write', spec, false)(args);
  },
  chmod: chmodTargets,
  chown: ownerTargets('chown'),
  chgrp: ownerTargets('chgrp'),
  dd: ddTargets,
  sort: (args) =>
    optionValues(parseArgs(args, { shortWithValue: 'kStTo', longWithValue: ['--key', '--buffer-size', '--field-separator', '--temporary-directory', '--output'] }), '-o', '--output').map((w) =>
      target(w, 'sort -o', 'write'),
    ),
  uniq: (args) =>
    parseArgs(args, { shortWithValue: 'fsw' })
      .positionals.slice(1, 2)
      .map((w) => target(w, 'uniq', 'write')),
  ...TOOL_TARGETS,
};

/**
 * The files a simple command writes through its arguments (not its redirections).
 * `words` is the command after unwrapping (`words[0]` is the program).
 * @example commandTargets(words('cp a b/')) // [{path: 'b/a', via: 'cp', kind: 'write'}]
 */
export function commandTargets(words: readonly Word[]): FoundTarget[] {
  const name = commandName(words[0]);
  const reader = name === null ? undefined : READERS[name];
  if (!reader) return [];
  return reader(words.slice(1)).filter((t) => !(t.literal && isStreamPath(t.path)));
}
