// Commands that write git's control files, where a planted setting or hook runs code later, outside
// the gate: `git config` and the commands that write config for you, sparse-checkout, hook installers.
import type { Word } from './ast.js';
import { commandName, hasOption, optionValues, parseArgs, type ParsedArgs } from './command-line.js';
import { packageBinArgs } from './deny-rules.js';
import { literalWord, target, type FoundTarget } from './write-target.js';
import { gitCommand } from './git-targets.js';

/** What the agent can do instead of changing git config. */
const CONFIG_INSTEAD = 'give a setting to one command with `git -c NAME=VALUE …` (a person reviews it), and leave the git config files to the operator';

/** Instead of adding or changing a remote. */
const REMOTE_INSTEAD = 'use the URL directly (`git push URL BRANCH`, `git fetch URL`) instead of adding or changing a remote';

/** Instead of recording an upstream branch. */
const UPSTREAM_INSTEAD = 'leave the upstream unset: push with `git push origin BRANCH` (no -u) and create branches with --no-track';

/** Instead of installing hooks or repository features. */
const OPERATOR_INSTEAD = 'ask the operator to run it outside the session; hooks and git settings the agent installs run code later, outside the gate';

/** `git config` options that read; with one of these (and no writing option) nothing is written. */
const CONFIG_READS = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list'];

/** `git config` options that write. */
const CONFIG_WRITES = ['--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit'];

/** `git config` subcommands (git 2.46 and later) that only read. */
const CONFIG_READ_SUBCOMMANDS = new Set(['get', 'list']);

/** `git config` subcommands that write. */
const CONFIG_WRITE_SUBCOMMANDS = new Set(['set', 'unset', 'rename-section', 'remove-section', 'edit']);

/** `git remote` subcommands that write the config. */
const REMOTE_WRITES = new Set(['add', 'set-url', 'rename', 'remove', 'rm', 'set-branches']);

/** `git submodule` subcommands that write the config (`update` only with --init). */
const SUBMODULE_WRITES = new Set(['add', 'init', 'deinit', 'set-url', 'set-branch', 'sync', 'absorbgitdirs']);

/** Programs that install git hooks (or point core.hooksPath at their own), with the argument that does it ('' for none). */
const HOOK_INSTALLERS: Record<string, (args: readonly string[]) => boolean> = {
  husky: (a) => a.length === 0 || a[0] === 'install' || a[0] === 'init' || a[0] === 'add' || a[0] === 'set',
  'husky-init': () => true,
  'pre-commit': (a) => a[0] === 'install' || a[0] === 'init-templatedir',
  lefthook: (a) => a[0] === 'install' || a[0] === 'add',
  'simple-git-hooks': () => true,
  'git-lfs': (a) => a[0] === 'install' || a[0] === 'update' || a[0] === 'uninstall',
  overcommit: (a) => a.includes('--install') || a.includes('-i'),
};

const CONFIG_SPEC = { shortWithValue: 'f', longWithValue: ['--file', '--blob', '--type', '--default', '--comment', '--value', '--url'] };

/** A git control file of the repository holding `dir` (null: the command's directory). */
function repoFile(file: string, via: string, dir: Word | null, instead: string): FoundTarget {
  return { ...target(literalWord(`.git/${file}`), via, 'write', file.endsWith('/'), dir), repoFile: file, instead };
}

/** The user's global git config, in both places git reads it from. */
function globalConfig(via: string): FoundTarget[] {
  const home = (p: string): Word => ({ text: p, value: p, literal: false, splits: false, evaluates: false, subs: [] });
  return ['~/.gitconfig', '~/.config/git/config'].map((p) => ({ ...target(home(p), via, 'write'), instead: CONFIG_INSTEAD }));
}

/** The config file(s) `git config` with these options writes, or [] when it only reads. */
function configTargets(parsed: ParsedArgs, dir: Word | null, gitDir: Word | null): FoundTarget[] {
  const first = parsed.positionals[0];
  const sub = first?.literal ? first.value : null;
  const writes =
    hasOption(parsed, ...CONFIG_WRITES) ||
    (sub !== null && CONFIG_WRITE_SUBCOMMANDS.has(sub)) ||
    (!hasOption(parsed, ...CONFIG_READS) && !(sub !== null && CONFIG_READ_SUBCOMMANDS.has(sub)) && parsed.positionals.length >= 2) ||
    parsed.positionals.some((w) => !w.literal);
  if (!writes || hasOption(parsed, '--blob')) return [];
  const files = optionValues(parsed, '-f', '--file');
  if (files.length > 0) return files.map((f) => ({ ...target(f, 'git config --file', 'write', false, dir), instead: CONFIG_INSTEAD }));
  if (hasOption(parsed, '--global')) return globalConfig('git config --global');
  if (hasOption(parsed, '--system')) return [{ ...target(literalWord('/etc/gitconfig'), 'git config --system', 'write'), instead: CONFIG_INSTEAD }];
  return repoConfig('git config', dir, gitDir, CONFIG_INSTEAD, hasOption(parsed, '--worktree') ? ['config', 'config.worktree'] : ['config']);
}

/** The repository's config (`--git-dir` given: the file in it, found without walking up). */
function repoConfig(via: string, dir: Word | null, gitDir: Word | null, instead: string, files: string[] = ['config']): FoundTarget[] {
  if (gitDir) return files.map((f) => ({ ...target(literalWord(f), via, 'write', false, gitDir), instead }));
  return files.map((f) => repoFile(f, via, dir, instead));
}

/**
 * The git control files `words` (a command after unwrapping) would write: `git config` write forms,
 * commands that record remotes, upstreams, submodules or sparse patterns, and hook installers.
 * @example gitControlTargets(words('git config core.hooksPath x')) // [{path: '.git/config', repoFile: 'config'}]
 */
export function gitControlTargets(words: readonly Word[]): FoundTarget[] {
  const name = commandName(words[0]);
  if (name === null) return [];
  const bin = packageBinArgs(words) ?? words;
  const binName = commandName(bin[0]);
  const installer = binName === null ? undefined : HOOK_INSTALLERS[binName];
  if (installer?.(bin.slice(1).map((w) => w.value))) return hookTargets(binName!, null, bin.slice(1));
  if (name !== 'git') return [];
  const { sub, rest, dir, gitDir } = gitCommand(words.slice(1));
  const values = rest.map((w) => w.value);
  const via = `git ${sub ?? ''}`;
  switch (sub) {
    case 'config':
      return configTargets(parseArgs(rest, CONFIG_SPEC), dir, gitDir);
    case 'remote':
      return rest[0] && (!rest[0].literal || REMOTE_WRITES.has(rest[0].value)) ? repoConfig(`git remote ${rest[0].value}`, dir, gitDir, REMOTE_INSTEAD) : [];
    case 'branch':
    case 'checkout':
    case 'switch': {
      const upstream = values.some((v) => /^(-u|--set-upstream-to(=.*)?|--unset-upstream|-t|--track(=.*)?)$/.test(v) || (sub === 'branch' && /^-[a-zA-Z]*u/.test(v)));
      return upstream ? repoConfig(`${via} --track`, dir, gitDir, UPSTREAM_INSTEAD) : [];
    }
    case 'push':
      return values.some((v) => v === '-u' || v === '--set-upstream' || /^-[a-zA-Z]*u$/.test(v)) ? repoConfig('git push -u', dir, gitDir, UPSTREAM_INSTEAD) : [];
    case 'submodule': {
      const verb = rest.find((w) => !w.value.startsWith('-'));
      const writes = verb && (SUBMODULE_WRITES.has(verb.value) || (verb.value === 'update' && values.includes('--init')));
      return writes ? repoConfig(`git submodule ${verb.value}`, dir, gitDir, OPERATOR_INSTEAD) : [];
    }
    case 'sparse-checkout':
      if (rest[0]?.literal && (rest[0].value === 'list' || rest[0].value === 'check-rules')) return [];
      return [...repoConfig('git sparse-checkout', dir, gitDir, OPERATOR_INSTEAD), repoFile('info/sparse-checkout', 'git sparse-checkout', dir, OPERATOR_INSTEAD)];
    case 'lfs':
      return HOOK_INSTALLERS['git-lfs']!(values) ? hookTargets('git lfs', dir, rest) : [];
    case 'init':
      return initTargets(rest, dir);
    case 'maintenance':
      return ['register', 'start', 'unregister', 'stop'].includes(values[0] ?? '')
        ? [...globalConfig(`git maintenance ${values[0]}`), ...repoConfig(`git maintenance ${values[0]}`, dir, gitDir, OPERATOR_INSTEAD)]
        : [];
    default:
      // A subcommand only known at run time may be any of the above.
      return sub !== null && /[$`]/.test(sub) ? repoConfig('git (subcommand known at run time)', dir, gitDir, 'name the git subcommand literally') : [];
  }
}

/** A hook installer writes the hooks folder and the repository's config (core.hooksPath); `git lfs install` the global config too. */
function hookTargets(via: string, dir: Word | null, args: readonly Word[]): FoundTarget[] {
  const out = [repoFile('hooks/', via, dir, OPERATOR_INSTEAD), repoFile('config', via, dir, OPERATOR_INSTEAD)];
  const values = args.map((w) => w.value);
  if ((via === 'git lfs' || via === 'git-lfs') && !values.includes('--local') && values[0] !== 'update') out.push(...globalConfig(`${via} ${values[0] ?? ''}`.trim()));
  return out.map((t) => ({ ...t, instead: OPERATOR_INSTEAD }));
}

/** `git init [DIR]` writes DIR's own `.git` (a new repository, or the hooks of an existing one), never a parent's. */
function initTargets(rest: Word[], dir: Word | null): FoundTarget[] {
  const parsed = parseArgs(rest, { longWithValue: ['--template', '--separate-git-dir', '--object-format', '--ref-format', '--initial-branch', '--shared'], shortWithValue: 'b' });
  const at = parsed.positionals[0] ?? null;
  const folder = at === null ? dir : dir === null || at.value.startsWith('/') ? at : { ...at, text: `${dir.text}/${at.text}`, value: `${dir.value}/${at.value}`, literal: at.literal && dir.literal };
  return ['.git/hooks/', '.git/config'].map((p) => ({
    ...target(literalWord(p), 'git init', 'write', p.endsWith('/'), folder),
    instead: 'create the repository in a new folder, or ask the operator; re-initialising this one can install hooks',
  }));
}
