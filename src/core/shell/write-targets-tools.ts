// Write-target readers for tools with their own argument syntax: sed/perl in-place edits,
// curl, wget, patch, tar, unzip and find (git's are in git-targets.ts). Each returns the targets its arguments name.
import type { Word } from './ast.js';
import { hasOption, longMatches, optionValues, parseArgs } from './command-line.js';
import { gitTargets } from './git-targets.js';
import { alsoJudged, literalWord, target, type FoundTarget } from './write-target.js';

type Reader = (args: Word[]) => FoundTarget[];

/** `sed -i[SUFFIX]` / `--in-place[=SUFFIX]`: the files after the script are rewritten. */
function sedTargets(args: Word[]): FoundTarget[] {
  let inPlace = false;
  let script = false;
  const positionals: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (v.startsWith('--')) {
      const name = v.split('=')[0]!;
      if (longMatches(name, '--in-place')) inPlace = true;
      else if (longMatches(name, '--expression') || longMatches(name, '--file')) {
        script = true;
        if (!v.includes('=')) i++;
      } else if (longMatches(name, '--line-length') && !v.includes('=')) i++;
      continue;
    }
    if (v.startsWith('-') && v.length > 1) {
      for (let j = 1; j < v.length; j++) {
        const c = v[j]!;
        if (c === 'i') {
          inPlace = true;
          break; // the rest of the cluster is the backup suffix
        }
        if (c === 'e' || c === 'f' || c === 'l') {
          if (c !== 'l') script = true;
          if (j + 1 === v.length) i++;
          break;
        }
      }
      continue;
    }
    positionals.push(args[i]!);
  }
  if (!inPlace) return [];
  return positionals.slice(script ? 0 : 1).map((w) => target(w, 'sed -i', 'write'));
}

/** `perl -i[EXT] -pe CODE FILE…`: the files are rewritten in place. */
function perlTargets(args: Word[]): FoundTarget[] {
  let inPlace = false;
  let code = false;
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-') || v === '-') break;
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!;
      if (c === 'i') inPlace = true;
      if (c === 'e' || c === 'E') {
        code = true;
        if (j + 1 === v.length) i++;
        break;
      }
      if ('iIMmxFdDV'.includes(c)) break; // these take the rest of the cluster as their value
    }
  }
  if (!inPlace) return [];
  return args.slice(code ? i : i + 1).map((w) => target(w, 'perl -i', 'write'));
}

/** curl's short options that take a value, so `-sSo out` and `-H x -o out` are read correctly. */
const CURL_SHORT_WITH_VALUE = 'AbcCdDEeFHKmoPQrTtUuwXxYyz';

function curlTargets(args: Word[]): FoundTarget[] {
  const parsed = parseArgs(args, { shortWithValue: CURL_SHORT_WITH_VALUE, longWithValue: ['--output', '--dump-header', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--etag-save'] });
  const out: FoundTarget[] = [];
  for (const o of parsed.options) {
    if (!o.value || o.value.value === '-') continue;
    if (o.name === '-o' || longMatches(o.name, '--output')) out.push(target(o.value, 'curl -o', 'write'));
    else if (o.name === '-D' || o.name === '-c' || ['--dump-header', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--etag-save'].some((n) => longMatches(o.name, n))) {
      out.push(target(o.value, `curl ${o.name}`, 'write'));
    }
  }
  return out;
}

function wgetTargets(args: Word[]): FoundTarget[] {
  const parsed = parseArgs(args, { shortWithValue: 'aBeiOoPQtTUw', longWithValue: ['--output-document', '--output-file', '--append-output', '--directory-prefix'] });
  const out: FoundTarget[] = [];
  for (const o of parsed.options) {
    if (!o.value || o.value.value === '-') continue;
    if (o.name === '-O' || longMatches(o.name, '--output-document')) out.push(target(o.value, 'wget -O', 'write'));
    else if (o.name === '-o' || o.name === '-a' || longMatches(o.name, '--output-file') || longMatches(o.name, '--append-output')) out.push(target(o.value, 'wget -o', 'write'));
    else if (o.name === '-P' || longMatches(o.name, '--directory-prefix')) out.push(target(o.value, 'wget -P', 'create'));
  }
  return out;
}

function patchTargets(args: Word[]): FoundTarget[] {
  const parsed = parseArgs(args, { shortWithValue: 'BDdFgioprVYz', longWithValue: ['--input', '--output', '--reject-file', '--directory', '--strip'] });
  const out = parsed.positionals.slice(0, 1).map((w) => target(w, 'patch', 'write'));
  for (const w of optionValues(parsed, '-o', '--output', '-r', '--reject-file')) if (w.value !== '-') out.push(target(w, 'patch -o', 'write'));
  return out;
}

/** tar's short options that take a value. */
const TAR_SHORT_WITH_VALUE = 'bCfFgHKLNTVX';

function tarTargets(args: Word[]): FoundTarget[] {
  // Old style: `tar xzf a.tgz` is `tar -xzf a.tgz`.
  const first = args[0];
  const words = first && !first.value.startsWith('-') ? [{ ...first, value: `-${first.value}` }, ...args.slice(1)] : args;
  const parsed = parseArgs(words, { shortWithValue: TAR_SHORT_WITH_VALUE, longWithValue: ['--file', '--directory', '--files-from', '--exclude-from'] });
  const out: FoundTarget[] = [];
  if (hasOption(parsed, '-x', '--extract', '--get')) {
    // An archive holds any paths: extraction reaches everything below the folder it goes to.
    const dirs = optionValues(parsed, '-C', '--directory');
    out.push(...dirs.map((w) => target(w, 'tar -x -C', 'write', true)));
    if (dirs.length === 0) out.push(alsoJudged(target(literalWord('.'), 'tar -x', 'write', true)));
  } else if (hasOption(parsed, '-c', '--create', '-r', '--append', '-u', '--update')) {
    out.push(
      ...optionValues(parsed, '-f', '--file')
        .filter((w) => w.value !== '-')
        .map((w) => target(w, 'tar -f', 'write')),
    );
  }
  return out;
}

function unzipTargets(args: Word[]): FoundTarget[] {
  const out: FoundTarget[] = [];
  args.forEach((w, i) => {
    if (w.value === '-d' && args[i + 1]) out.push(target(args[i + 1]!, 'unzip -d', 'write', true));
    else if (w.value.startsWith('-d') && w.value.length > 2) out.push(target({ ...w, value: w.value.slice(2), text: w.text.slice(2) }, 'unzip -d', 'write', true));
  });
  // Listing and testing write nothing; otherwise the archive lands in the command's folder.
  const reads = args.some((w) => /^-[a-zA-Z]*[lvtZ]/.test(w.value));
  if (out.length === 0 && !reads) out.push(alsoJudged(target(literalWord('.'), 'unzip', 'write', true)));
  return out;
}

/** rsync/scp `SRC… DEST`: a local destination (no `host:`) receives the sources, whole trees. */
function remoteCopyTargets(via: string, shortWithValue: string): (args: Word[]) => FoundTarget[] {
  return (args) => {
    const parsed = parseArgs(args, {
      shortWithValue,
      longWithValue: [
        '--rsh',
        '--filter',
        '--exclude',
        '--include',
        '--exclude-from',
        '--include-from',
        '--files-from',
        '--temp-dir',
        '--partial-dir',
        '--backup-dir',
        '--suffix',
        '--chmod',
        '--chown',
        '--rsync-path',
        '--password-file',
        '--log-file',
        '--compare-dest',
        '--copy-dest',
        '--link-dest',
        '--port',
      ],
    });
    const files = parsed.positionals;
    const dest = files[files.length - 1];
    const out = optionValues(parsed, '--log-file').map((w) => target(w, `${via} --log-file`, 'write'));
    if (files.length < 2 || !dest || /^[^/]*:/.test(dest.value)) return out;
    out.push(target(dest, via, 'write', true));
    for (const s of files.slice(0, -1)) out.push(alsoJudged(target(s.literal ? { ...s, value: s.value.replace(/\/+$/, '').replace(/^.*\//, '') } : s, via, 'write', true, dest)));
    return out;
  };
}

/** find actions that write a file named by their first argument. */
const FIND_FILE_ACTIONS = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);

/** find expression words that select nothing: with only these, `-delete` removes the whole tree. */
const FIND_UNFILTERED = /^(-delete|-depth|-d|-maxdepth|-mindepth|-xdev|-mount|-print0?|-ignore_readdir_race|\d+)$/;

function findTargets(args: Word[]): FoundTarget[] {
  const start = args.findIndex((w) => /^[-(!]/.test(w.value));
  const roots = start === -1 ? args : args.slice(0, start);
  const expression = start === -1 ? [] : args.slice(start);
  const out: FoundTarget[] = [];
  args.forEach((w, i) => {
    if (FIND_FILE_ACTIONS.has(w.value) && args[i + 1]) out.push(target(args[i + 1]!, `find ${w.value}`, 'write'));
    if (w.value === '-delete') {
      // With tests such as -name, only matching files go, so the roots are not wiped as a whole.
      const whole = expression.every((e) => FIND_UNFILTERED.test(e.value));
      out.push(...(roots.length ? roots : [literalWord('.')]).map((r) => target(r, 'find -delete', 'delete', whole)));
    }
  });
  return out;
}

/** The tool readers, by program name. */
export const TOOL_TARGETS: Record<string, Reader> = {
  sed: sedTargets,
  perl: perlTargets,
  git: gitTargets,
  curl: curlTargets,
  wget: wgetTargets,
  patch: patchTargets,
  tar: tarTargets,
  unzip: unzipTargets,
  find: findTargets,
  rsync: remoteCopyTargets('rsync', 'efTBM'),
  scp: remoteCopyTargets('scp', 'cFiJlPoS'),
};
