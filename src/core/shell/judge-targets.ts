// Judges the files a command would change: expands each target as far as the command line tells,
// then refuses those that can reach the supervisor's files or, when confined, leave the worktree.
import { isInside } from '../path-inside.js';
import { isBlockDevice } from './deny-rules.js';
import { expandWord, fieldText, MAX_FIELDS, type ExpandEnv, type Field } from './expand.js';
import type { Judgement } from './judgement.js';
import { ANY_PATH, canLeave, foldPath, matchesGlob, reaches, toPatterns, type PathPattern } from './path-pattern.js';
import { normalizePath } from './paths.js';
import { reported, type FoundTarget, type WriteTarget } from './write-target.js';

/** Where targets are resolved and what they must not touch. */
export interface TargetScope {
  /** The directories the command may run in (the first is reported), or null when unknown. */
  cwds: readonly string[] | null;
  /** The session's directory: targets relative to it are reported as written. */
  baseCwd: string;
  /** Normalised absolute protected paths. */
  protectedPaths: readonly string[];
  /** The folder every write must stay in, or null. */
  confine: string | null;
  /** Protected paths a write may still touch because they already differ from the baseline. */
  restorable: ((abs: string) => boolean) | null;
  env: ExpandEnv;
}

/** The way out offered when a target is refused for what it could expand to. */
const WRITE_LITERALLY = 'write the path literally (no variables, globs or substitutions), inside the allowed paths';

/** The way out offered when relative targets follow a `cd` the analysis could not follow. */
const CD_LITERALLY = 'cd to a literal folder joined to the command with &&, or give the path from /';

/** Sample names of block devices, to test a glob under /dev against. */
const DISK_NAMES = ['sda', 'hda', 'vda', 'xvda', 'nvme0n1', 'mmcblk0', 'md0', 'dm-0', 'loop0', 'disk0', 'rdisk0'];

function verbOf(t: FoundTarget): string {
  return t.kind === 'delete' ? 'deletes' : t.kind === 'create' ? 'creates' : 'writes';
}

/**
 * Judges each target into `j` and returns them as reported: a target that expands to known paths
 * is reported once per path (literal); relative paths after a `cd` become absolute.
 */
export function judgeTargets(targets: readonly FoundTarget[], scope: TargetScope, j: Judgement): WriteTarget[] {
  return targets.flatMap((t) => {
    const out = t.repoFile ? judgeRepoFile(t, scope, j) : judgeOne(t, scope, j);
    return t.judgeOnly ? [] : out;
  });
}

/** The fields a target expands to, its folder word joined in front of relative ones. */
function targetFields(t: Pick<FoundTarget, 'word' | 'dir'>, env: ExpandEnv): Field[] {
  const words = expandWord(t.word, env).fields;
  if (t.dir === null) return words;
  const out: Field[] = [];
  for (const d of expandWord(t.dir, env).fields) {
    for (const w of words) {
      const first = w[0];
      out.push(first?.kind === 'text' && first.text.startsWith('/') ? w : [...d, { kind: 'text', text: '/' }, ...w]);
    }
  }
  return out.length > MAX_FIELDS ? [[{ kind: 'any' }]] : out;
}

function judgeOne(t: FoundTarget, scope: TargetScope, j: Judgement): WriteTarget[] {
  const fields = targetFields(t, scope.env);
  const texts = fields.map(fieldText);
  if (texts.every((x): x is string => x !== null)) {
    if (t.literal) return [judgeLiteral(t, t.path, scope, j)];
    return texts.map((p) => judgeLiteral(t, p, scope, j));
  }
  judgePatterns(
    t,
    fields.flatMap((f) => toPatterns(f, scope.cwds)),
    t.path,
    scope,
    j,
    'a path only known at run time',
  );
  return [reported(t, t.path, false)];
}

/** The protected path `abs` falls in (or, for a recursive operation, holds), compared case-folded. */
function protectedHit(abs: string, recursive: boolean, scope: TargetScope): { path: string; inside: boolean } | null {
  const f = foldPath(abs);
  for (const p of scope.protectedPaths) {
    const fp = foldPath(p);
    if (isInside(fp, f)) return { path: p, inside: true };
    if (recursive && isInside(f, fp)) return { path: p, inside: false };
  }
  return null;
}

function judgeLiteral(t: FoundTarget, p: string, scope: TargetScope, j: Judgement): WriteTarget {
  const relative = !p.startsWith('/');
  if (relative && scope.cwds === null) {
    judgePatterns(t, [ANY_PATH], p, scope, j, 'after a change of directory Gatehouse could not follow', CD_LITERALLY);
    return reported(t, p, false);
  }
  const abss = relative ? scope.cwds!.map((c) => normalizePath(`${c}/${p}`)) : [normalizePath(p)];
  const main = abss[0]!;
  const verb = verbOf(t);
  if (abss.some((a) => a.startsWith('/proc/'))) {
    judgePatterns(t, [ANY_PATH], p, scope, j, 'through /proc, which can name any file');
    return reported(t, relative && scope.cwds![0] !== scope.baseCwd ? main : p, false);
  }
  if (isBlockDevice(main)) j.raise('deny', `it writes straight to the disk device ${main}, destroying its file systems`);
  abss.forEach((abs, k) => {
    const hit = protectedHit(abs, t.recursive, scope);
    const shown = k === 0 ? p : abs;
    // A protected file that already differs exists as a file, so nothing lands inside it.
    const restoring = hit !== null && hit.inside && (scope.restorable?.(abs) || (t.judgeOnly === true && abs !== hit.path && scope.restorable?.(hit.path)));
    if (hit && restoring) {
      j.raise('ask', `it ${verb} ${shown} (${t.via}), a protected file that already differs from its baseline, to put it back`);
    } else if (hit) {
      const where = `${hit.inside ? 'inside' : 'which holds'} the supervisor's own files (${hit.path})`;
      if (k === 0) j.raise('deny', `it ${verb} ${shown} (${t.via}), ${where}; an agent may never change them`, t.instead);
      else j.raise('deny', `if a cd before it fails, it ${verb} ${shown} (${t.via}), ${where}`, 'join the cd and the command with && so the command runs only where the cd went');
    } else if (k > 0 && scope.confine !== null && !isInside(scope.confine, abs)) {
      j.raise('deny', `if a cd before it fails, it ${verb} ${shown} (${t.via}), outside ${scope.confine}`, 'join the cd and the command with && so the command runs only where the cd went');
    }
  });
  j.raise('ask', `it ${verb} ${p} (${t.via})`);
  const shownPath = relative && scope.cwds![0] !== scope.baseCwd ? main : p;
  return reported(t, shownPath, true);
}

/** Judges a target that can name many paths: refused if any can be protected or outside the confinement. */
function judgePatterns(t: FoundTarget, patterns: readonly PathPattern[], shown: string, scope: TargetScope, j: Judgement, unknown: string, instead = WRITE_LITERALLY): void {
  const verb = verbOf(t);
  for (const p of scope.protectedPaths) {
    const r = patterns.map((pat) => reaches(pat, p, t.recursive)).find((x) => x !== null);
    if (r) {
      const what = r === 'inside' ? 'a path inside' : 'a folder holding';
      return j.raise('deny', `it ${verb} ${shown} (${t.via}), ${unknown}, which can be ${what} the supervisor's own files (${p})`, t.instead ?? instead);
    }
  }
  if (scope.confine !== null && patterns.some((pat) => canLeave(pat, scope.confine!))) {
    return j.raise(
      'deny',
      `it ${verb} ${shown} (${t.via}), ${unknown}, which can be outside ${scope.confine}`,
      instead === WRITE_LITERALLY ? `name the path literally, inside ${scope.confine}` : instead,
    );
  }
  if (patterns.some(isDiskPattern)) return j.raise('deny', `it writes ${shown} (${t.via}), which can be a disk device, destroying its file systems`);
  j.raise('ask', `it ${verb} ${shown} (${t.via}), ${unknown}`);
}

function isDiskPattern(p: PathPattern): boolean {
  if (p.any) return false;
  const [dev, name] = p.segments;
  if (!dev || !name || !('exact' in dev) || dev.exact !== 'dev') return false;
  return 'tokens' in name ? DISK_NAMES.some((n) => matchesGlob(name, n)) : 'deep' in name;
}

/**
 * A git control file (`config`, `hooks/`, …) of the repository holding the target's folder: the
 * nearest `.git` above it is not known here, so every ancestor's is a candidate, and the first
 * protected one is what the command writes.
 */
function judgeRepoFile(t: FoundTarget, scope: TargetScope, j: Judgement): WriteTarget[] {
  const file = t.repoFile!;
  const verb = verbOf(t);
  const folder = file.endsWith('/');
  // GIT_DIR set earlier in the line names the repository's folder itself.
  const gitDir = scope.env.lookup('GIT_DIR');
  if (gitDir !== undefined) {
    const texts = gitDir === null ? [null] : gitDir.map(fieldText);
    if (texts.every((x): x is string => x !== null && x.startsWith('/'))) return texts.flatMap((d) => judgeLiteral({ ...t, recursive: folder }, normalizePath(`${d}/${file}`), scope, j));
    judgePatterns({ ...t, recursive: folder }, [ANY_PATH], `$GIT_DIR/${file}`, scope, j, 'in a repository only known at run time');
    return [reported(t, `$GIT_DIR/${file}`, false)];
  }
  const dirs = t.dir === null ? scope.cwds : expandDirs(t, scope);
  if (dirs === null) {
    judgePatterns({ ...t, recursive: folder }, [ANY_PATH], `.git/${file}`, scope, j, 'in a repository only known at run time');
    return [reported(t, `.git/${file}`, false)];
  }
  const out: WriteTarget[] = [];
  for (const dir of dirs) {
    let chosen = normalizePath(`${dir}/.git/${file}`);
    let hit: { path: string; inside: boolean } | null = null;
    for (let a = normalizePath(dir); hit === null; a = normalizePath(`${a}/..`)) {
      const candidate = normalizePath(`${a}/.git/${file}`);
      hit = protectedHit(candidate, folder, scope);
      if (hit) chosen = candidate;
      if (a === '/') break;
    }
    if (hit && !folder && hit.inside && scope.restorable?.(chosen)) j.raise('ask', `it ${verb} ${chosen} (${t.via}), a protected file that already differs from its baseline, to put it back`);
    else if (hit) j.raise('deny', `it ${verb} ${chosen} (${t.via}), a git control file where planted settings or hooks run code later, outside the gate (${hit.path})`, t.instead);
    else j.raise('ask', `it ${verb} ${chosen} (${t.via})`);
    out.push(reported({ ...t, recursive: folder }, chosen, true));
  }
  return out;
}

/** The concrete folders a target's folder word names, or null when it is not known exactly. */
function expandDirs(t: FoundTarget, scope: TargetScope): string[] | null {
  const out: string[] = [];
  for (const f of expandWord(t.dir!, scope.env).fields) {
    const text = fieldText(f);
    if (text === null) return null;
    if (text.startsWith('/')) out.push(normalizePath(text));
    else if (scope.cwds === null) return null;
    else out.push(...scope.cwds.map((c) => normalizePath(`${c}/${text}`)));
  }
  return out;
}

/**
 * Judges where a link made by the command points (`ln`, `cp -l`/`-s`): a link into the
 * supervisor's files, or out of the confinement, lets a later write escape every check.
 */
export function judgeLinkSources(sources: readonly FoundTarget[], scope: TargetScope, j: Judgement): void {
  for (const s of sources) {
    const patterns = targetFields(s, scope.env).flatMap((f) => toPatterns(f, scope.cwds));
    const shown = s.word.literal ? s.word.value : s.word.text;
    for (const p of scope.protectedPaths) {
      if (patterns.some((pat) => reaches(pat, p, true) !== null)) {
        return j.raise(
          'deny',
          `it links to ${shown} (${s.via}), which can be the supervisor's own files (${p}); a write through the link would change them`,
          'copy what you need with cp rather than link it',
        );
      }
    }
    if (scope.confine !== null && patterns.some((pat) => canLeave(pat, scope.confine!))) {
      return j.raise(
        'deny',
        `it links to ${shown} (${s.via}), which can be outside ${scope.confine}; a write through the link would land there`,
        `copy the file with cp, or link to a path inside ${scope.confine}`,
      );
    }
  }
}
