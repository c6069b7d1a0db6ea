// Git side of the scope baseline: HEAD plus the content of every path dirty at start.
// A change is any path whose content now differs from that, committed since or not.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { existsSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Change, GitBaseline, PathFilter } from './scope-baseline.js';
import { hashFile, inTurns, lstatOrNull, treeDigest } from './scope-manifest.js';

/** Largest git output read: a path list of a monorepo with ~2 million files. */
const GIT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** Paths passed to one `git ls-tree` call; far below the kernel's argv limit (2 MiB). */
const LS_TREE_ARG_BYTES = 128 * 1024;

/**
 * Inherited variables that would point git at another repository, index or pathspec
 * mode than the worktree's own (set, for instance, when Gatehouse runs inside a git hook).
 */
const GIT_ENV_DROPPED = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_PREFIX', 'GIT_LITERAL_PATHSPECS', 'GIT_GLOB_PATHSPECS', 'GIT_NOGLOB_PATHSPECS', 'GIT_ICASE_PATHSPECS',
];

type GitRun = { code: number; stdout: string; stderr: string };
type Repo = { algo: string; ignore: string };

/** Records HEAD and the dirty paths; null when `cwd` is not in a git work tree, or is ignored there. */
export async function recordGitBaseline(cwd: string, skip: PathFilter): Promise<GitBaseline | null> {
  const repo = await probe(cwd);
  if (repo === null || (await isIgnored(cwd))) return null;
  const verify = await run(cwd, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  const head = verify.code === 0 ? verify.stdout.trim() : null;
  const paths = await candidates(cwd, head, false, skip, []);
  const values = await inTurns(paths, (rel) => currentValue(cwd, rel, repo.algo));
  // fromEntries defines own properties, so a file named `__proto__` survives.
  return { kind: 'git', head, ignore: repo.ignore, dirty: Object.fromEntries(paths.map((rel, i) => [rel, values[i] ?? null])) };
}

/** Lists the paths whose content differs from the baseline. */
export async function changedSinceGit(cwd: string, base: GitBaseline, skip: PathFilter): Promise<Change[]> {
  const repo = await probe(cwd);
  if (repo === null) throw new Error(`${cwd} is no longer inside a git work tree, so its changes since the baseline cannot be listed`);
  // Ignore rules kept outside the tree changed (the agent can write .git/info/exclude):
  // trust only .gitignore files, whose own edits are reported. A file that only those
  // rules ignored then shows as created: noise we accept over a hidden write.
  const strict = repo.ignore !== base.ignore;
  const paths = await candidates(cwd, base.head, strict, skip, Object.keys(base.dirty));
  const wasDirty = (rel: string): boolean => Object.hasOwn(base.dirty, rel);
  const atHead = await headValues(cwd, base.head, paths.filter((rel) => !wasDirty(rel)));
  const found = await inTurns(paths, async (rel): Promise<Change | null> => {
    const before = (wasDirty(rel) ? base.dirty[rel] : atHead.get(rel)) ?? null;
    const after = await currentValue(cwd, rel, repo.algo);
    if (before === after) return null;
    return { path: rel, change: before === null ? 'created' : after === null ? 'deleted' : 'modified' };
  });
  return found.filter((c): c is Change => c !== null);
}

/** Every path that may differ from `head`: a superset, narrowed by comparing contents. */
async function candidates(cwd: string, head: string | null, strict: boolean, skip: PathFilter, extra: string[]): Promise<string[]> {
  const excludes = strict ? ['--exclude-per-directory=.gitignore'] : ['--exclude-standard'];
  const [diff, index, others] = await Promise.all([
    head === null ? '' : git(cwd, ['diff', '--name-only', '-z', '--no-renames', '--relative', '--ignore-submodules=none', head, '--']),
    git(cwd, ['ls-files', '-z', '-v']),
    git(cwd, ['ls-files', '-z', '--others', ...excludes]),
  ]);
  const found = new Set([...extra, ...records(diff), ...records(others).map((p) => p.replace(/\/$/, ''))]);
  for (const rec of records(index)) {
    // `git diff` skips assume-unchanged (lowercase tag) and skip-worktree (S) entries
    // without looking at them; an absent skip-worktree file is just a sparse checkout.
    const tag = rec.charAt(0);
    const rel = rec.slice(2);
    if (head === null || (tag !== 'H' && (tag !== 'S' || existsSync(join(cwd, rel))))) found.add(rel);
  }
  return [...found].filter((rel) => !skip(rel));
}

/** `"<mode> <object id>"` of each path in the `head` tree; a path not there is left out. */
async function headValues(cwd: string, head: string | null, paths: string[]): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  let batch: string[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (head === null || batch.length === 0) return;
    // Literal pathspecs: a file named `*.ts` or `:x` means itself.
    for (const rec of records(await git(cwd, ['--literal-pathspecs', 'ls-tree', '-r', '-z', head, '--', ...batch]))) {
      const tab = rec.indexOf('\t');
      const [mode, , oid] = rec.slice(0, tab).split(' ');
      values.set(rec.slice(tab + 1), `${mode} ${oid}`);
    }
    batch = [];
    bytes = 0;
  };
  for (const rel of paths) {
    batch.push(rel);
    bytes += Buffer.byteLength(rel) + 1;
    if (bytes >= LS_TREE_ARG_BYTES) await flush();
  }
  await flush();
  return values;
}

/**
 * The path's content now, in the form `headValues` gives: the object id `git hash-object`
 * would compute from the raw bytes (no clean filters: only paths git already flags, or
 * that were dirty at baseline, are compared). A folder holding its own repository
 * (submodule, nested clone) is one entry, compared by a digest of its files.
 */
async function currentValue(cwd: string, rel: string, algo: string): Promise<string | null> {
  const path = join(cwd, rel);
  const st = lstatOrNull(path);
  if (st === null) return null;
  if (st.isSymbolicLink()) return `120000 ${blobId(algo, readlinkSync(path, { encoding: 'buffer' }))}`;
  if (st.isFile()) return `${st.mode & 0o100n ? '100755' : '100644'} ${await fileBlobId(algo, path, st)}`;
  if (st.isDirectory() && existsSync(join(path, '.git'))) return `160000 ${await treeDigest(path)}`;
  return null;
}

function blobId(algo: string, content: Buffer): string {
  return createHash(algo).update(`blob ${content.length}\0`).update(content).digest('hex');
}

async function fileBlobId(algo: string, path: string, st: BigIntStats): Promise<string> {
  const h = createHash(algo).update(`blob ${st.size}\0`);
  await hashFile(path, h, st.size);
  return h.digest('hex');
}

/** The repository's hash algorithm and ignore-rules digest; null outside a git work tree. */
async function probe(cwd: string): Promise<Repo | null> {
  const r = await run(cwd, ['rev-parse', '--is-inside-work-tree', '--show-object-format', '--git-path', 'info/exclude']);
  const [inside, algo, infoExclude] = r.stdout.split('\n');
  if (r.code !== 0 || inside !== 'true' || !algo || !infoExclude) return null;
  const configured = await run(cwd, ['config', '--path', '--get', 'core.excludesFile']);
  const globalExclude =
    configured.code === 0
      ? configured.stdout.trim()
      : join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'git', 'ignore');
  const h = createHash('sha256').update(`${globalExclude}\0`);
  for (const file of [globalExclude, resolve(cwd, infoExclude)]) {
    h.update(await readFile(file).catch(() => Buffer.alloc(0))).update('\0');
  }
  return { algo, ignore: h.digest('hex') };
}

/** Whether the repository ignores the worktree folder itself (then git lists nothing in it). */
async function isIgnored(cwd: string): Promise<boolean> {
  const r = await run(cwd, ['check-ignore', '-q', '.']);
  if (r.code > 1) throw new Error(`git check-ignore failed in ${cwd} (exit ${r.code}): ${r.stderr.trim()}`);
  return r.code === 0;
}

async function git(cwd: string, args: string[]): Promise<string> {
  const r = await run(cwd, args);
  if (r.code !== 0) throw new Error(`git ${args.slice(0, 2).join(' ')} failed in ${cwd} (exit ${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

function run(cwd: string, args: string[]): Promise<GitRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_NO_REPLACE_OBJECTS: '1' };
  for (const name of GIT_ENV_DROPPED) delete env[name];
  // No fsmonitor: its answers are a cache we would have to trust.
  const argv = ['-c', 'core.quotePath=false', '-c', 'core.fsmonitor=false', ...args];
  return new Promise((done) => {
    execFile('git', argv, { cwd, env, encoding: 'utf8', maxBuffer: GIT_MAX_OUTPUT_BYTES }, (err, stdout, stderr) => {
      // No exit code (git not installed, output over the limit): 127, Node's message as stderr.
      if (err === null) done({ code: 0, stdout, stderr });
      else if (typeof err.code === 'number') done({ code: err.code, stdout, stderr });
      else done({ code: 127, stdout, stderr: err.message });
    });
  });
}

function records(out: string): string[] {
  return out.split('\0').filter((r) => r !== '');
}
