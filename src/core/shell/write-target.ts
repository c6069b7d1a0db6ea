// The WriteTarget record shared by the write-target readers, and the small helpers they all
// use: building a target from a word, and recognising paths that are streams rather than files.
import type { Word } from './ast.js';

/** A file or folder a command would change. */
export interface WriteTarget {
  /** As written after quote removal when `literal`; otherwise the text as written. Relative to the command's directory, or absolute. */
  path: string;
  /** What writes it: `redirect >`, `tee`, `sed -i`, `cp`, `rm`, `git checkout --`, … */
  via: string;
  kind: 'write' | 'delete' | 'create';
  /** False when the path contains an expansion (`$X`, `*`, `~`, `$(…)`): the caller cannot check it. */
  literal: boolean;
  /** The operation reaches everything below `path` (`rm -r`, `mv`, `git checkout -- dir`). */
  recursive: boolean;
  /** It puts back the committed content (`git checkout -- p`, `git restore p`): the way back from an out-of-scope change. */
  restore?: boolean;
}

/** A target as a reader finds it: the words it came from, judged once the line's variables and directory are known. */
export interface FoundTarget extends WriteTarget {
  word: Word;
  /** The folder word the path is joined to (`cp a DIR/`, `git -C DIR`), or null for the command's directory. */
  dir: Word | null;
  /** A git control file of the repository holding `dir` (or the command's directory): found by walking up to `.git`. */
  repoFile?: string;
  /** What the agent can do instead when this target is refused. */
  instead?: string;
  /** A place the command may also write (a destination that may be a folder): judged, not reported. */
  judgeOnly?: boolean;
}

/** A target that is judged but not reported (see FoundTarget.judgeOnly). */
export function alsoJudged(t: FoundTarget): FoundTarget {
  return { ...t, judgeOnly: true };
}

/** Paths that are streams or devices without storage: writing there changes no file. */
const STREAM_PATHS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom']);

/** `/dev/fd/N` and `/proc/self/fd/N` are open descriptors, also streams. */
const FD_PATH = /^\/(dev|proc\/self)\/fd\/\d+$/;

/** True for paths that are not files on disk (`/dev/null`, `/dev/stderr`, `/dev/fd/3`, …). */
export function isStreamPath(path: string): boolean {
  return STREAM_PATHS.has(path) || FD_PATH.test(path);
}

/** Builds a target from a word; a folder word `dir` is joined in front of a relative path. */
export function target(w: Word, via: string, kind: WriteTarget['kind'], recursive = false, dir: Word | null = null): FoundTarget {
  const raw = w.literal ? w.value : w.text;
  const literal = w.literal && (dir === null || dir.literal);
  const base = dir === null ? null : dir.literal ? dir.value : dir.text;
  const path = base === null || raw.startsWith('/') ? raw : `${base.replace(/\/+$/, '')}/${raw}`;
  return { path, via, kind, literal, recursive, word: w, dir };
}

/** The target as reported to callers, without the words it was found in. */
export function reported(t: FoundTarget, path: string, literal: boolean): WriteTarget {
  return { path, via: t.via, kind: t.kind, literal, recursive: t.recursive, ...(t.restore ? { restore: true } : {}) };
}

/** A literal word, for paths the readers make up (the `.` a lone `ln SRC` links into). */
export function literalWord(value: string): Word {
  return { text: value, value, literal: true, splits: false, evaluates: false, subs: [] };
}
