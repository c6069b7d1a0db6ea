// What the links a command makes point to: `ln` (hard or symbolic), `link`, `cp -l` and `cp -s`.
// A later write through such a link lands on its source, so the source is judged like a target.
import type { Word } from './ast.js';
import { commandName, hasOption, optionValues, parseArgs, type OptionSpec } from './command-line.js';
import { literalWord, target, type FoundTarget } from './write-target.js';

const LN_SPEC: OptionSpec = { shortWithValue: 'tS', longWithValue: ['--target-directory', '--suffix'] };

/** The folder part of a path word (`a/b` → `a`, `b` → `.`), as a word of its own. */
function folderOf(w: Word): Word {
  const cut = (s: string): string => {
    const trimmed = s.replace(/\/+$/, '');
    const at = trimmed.lastIndexOf('/');
    return at === -1 ? '.' : at === 0 ? '/' : trimmed.slice(0, at);
  };
  return w.literal ? literalWord(cut(w.value)) : { ...w, text: cut(w.text), value: cut(w.value) };
}

/**
 * The sources of the links `words` (a command after unwrapping) would make. Each is a target
 * whose folder is where the link's text is resolved: the link's own folder for a symbolic link
 * (both candidates when the destination may be a folder), the command's for a hard link.
 * @example linkSources(words('ln -s ../x dir/l')) // [{path: 'dir/l/../x', via: 'ln -s'}, {path: 'dir/../x', via: 'ln -s'}]
 */
export function linkSources(words: readonly Word[]): FoundTarget[] {
  const name = commandName(words[0]);
  const args = words.slice(1);
  if (name === 'link') return args.slice(0, 1).map((w) => target(w, 'link', 'create', true));
  if (name !== 'ln' && name !== 'cp') return [];
  const parsed = parseArgs(args, LN_SPEC);
  const symbolic = name === 'ln' ? hasOption(parsed, '-s', '--symbolic') : hasOption(parsed, '-s', '--symbolic-link');
  if (name === 'cp' && !symbolic && !hasOption(parsed, '-l', '--link')) return [];
  const via = `${name} ${symbolic ? '-s' : '-l'}`.replace('ln -l', 'ln');
  const dirs = optionValues(parsed, '-t', '--target-directory');
  let sources = parsed.positionals;
  let linkFolders: Word[];
  if (dirs.length > 0) linkFolders = [dirs[dirs.length - 1]!];
  else if (sources.length === 1 && name === 'ln') linkFolders = [literalWord('.')];
  else if (sources.length < 2) return [];
  else {
    const dest = sources[sources.length - 1]!;
    sources = sources.slice(0, -1);
    // The destination is a folder (the link goes inside) or the link itself (its folder holds it).
    linkFolders = sources.length > 1 ? [dest] : hasOption(parsed, '-T', '--no-target-directory') ? [folderOf(dest)] : [dest, folderOf(dest)];
  }
  // A hard link, or a symbolic one made with --relative, names its source from the command's folder.
  const fromHere = !symbolic || hasOption(parsed, '-r', '--relative');
  return sources.flatMap((s) => (fromHere ? [target(s, via, 'create', true)] : linkFolders.map((f) => target(s, via, 'create', true, f))));
}
