// Reads which files a Codex `apply_patch` text adds, updates, deletes or moves, line for line
// as Codex's own parser does (openai/codex codex-rs/apply-patch/src/parser.rs), for the write gate.
import { fail, ok, type Result } from '../../core/result.js';

/** One file a patch touches. `move_to` is set when an update also renames. */
export interface PatchTarget {
  op: 'add' | 'update' | 'delete';
  path: string;
  move_to?: string;
}

const BEGIN_PATCH = '*** Begin Patch';
const END_PATCH = '*** End Patch';
const ADD_FILE = '*** Add File: ';
const DELETE_FILE = '*** Delete File: ';
const UPDATE_FILE = '*** Update File: ';
const MOVE_TO = '*** Move to: ';
const END_OF_FILE = '*** End of File';
/** Newer Codex builds accept this line before the first file to apply the patch in another environment. */
const ENVIRONMENT_ID = '*** Environment ID:';
const CHUNK = '@@';
const CHUNK_WITH_CONTEXT = '@@ ';
/** The headers that start a file; each ends in the one space Codex strips before the path. */
const FILE_HEADERS = [ADD_FILE, DELETE_FILE, UPDATE_FILE];
/** The only first lines Codex's lenient mode takes as a heredoc wrapper, compared exactly. */
const HEREDOC_OPENERS = ['<<EOF', "<<'EOF'", '<<"EOF"'];
const HEREDOC_CLOSER_SUFFIX = 'EOF';
/** Opener, Begin, End, closer: Codex unwraps a heredoc only around at least this many lines. */
const MIN_HEREDOC_LINES = 4;

/**
 * Rust's `char::is_whitespace` (Unicode White_Space), which Codex's `str::trim` uses. JavaScript's
 * `trim()` differs — it strips U+FEFF and keeps U+0085 — and a path trimmed differently from
 * Codex is a path the gate did not check.
 */
const RUST_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Rust's `str::trim_end`; a loop, not a regex, so a long run of spaces cannot stall the gate. */
function trimEnd(s: string): string {
  let end = s.length;
  while (end > 0 && RUST_WHITESPACE.has(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

/** Rust's `str::trim`. */
function trim(s: string): string {
  const end = trimEnd(s).length;
  let start = 0;
  while (start < end && RUST_WHITESPACE.has(s.charCodeAt(start))) start++;
  return s.slice(start, end);
}

/** Rust's `str::lines`: split at `\n`, drop one `\r` before it, no line after a final `\n`. */
function lines(text: string): string[] {
  const pieces = text.split('\n');
  const last = pieces.pop() ?? '';
  const result = pieces.map((piece) => (piece.endsWith('\r') ? piece.slice(0, -1) : piece));
  if (last !== '') result.push(last);
  return result;
}

/** Indexes of the lines between the Begin and End markers; `end` is the End marker's. */
interface Body {
  start: number;
  end: number;
}

/** A file hunk read from the patch, and the index of the line after it. */
interface Hunk {
  target: PatchTarget;
  next: number;
}

/**
 * Every file the patch adds, updates, deletes or moves, in order; fail() with a clear reason
 * when the text is not a patch Codex would apply.
 * @example patchTargets('*** Begin Patch\n*** Delete File: old.txt\n*** End Patch') // ok([{ op: 'delete', path: 'old.txt' }])
 */
export function patchTargets(text: string): Result<PatchTarget[]> {
  const all = lines(trim(text));
  const body = findBody(all);
  if (!body.ok) return body;
  const targets: PatchTarget[] = [];
  for (let at = body.value.start; at < body.value.end;) {
    const hunk = readHunk(all, at, body.value.end);
    if (!hunk.ok) return hunk;
    targets.push(hunk.value.target);
    at = hunk.value.next;
  }
  if (targets.length === 0) return fail('the patch names no file (Codex refuses it: "No files were modified."); add an Add, Update or Delete File section.');
  return ok(targets);
}

/**
 * The paths a gate must check: every path and every move destination, deduplicated, in order.
 * @example patchWritePaths([{ op: 'update', path: 'a.py', move_to: 'b.py' }, { op: 'delete', path: 'a.py' }]) // ['a.py', 'b.py']
 */
export function patchWritePaths(targets: readonly PatchTarget[]): string[] {
  const paths = new Set<string>();
  for (const target of targets) {
    paths.add(target.path);
    if (target.move_to !== undefined) paths.add(target.move_to);
  }
  return [...paths];
}

/** The markers as Codex checks them: first and last line, trimmed; else inside a bare heredoc. */
function findBody(all: readonly string[]): Result<Body> {
  const bare = markers(all, 0, all.length);
  if (bare.ok || all.length < MIN_HEREDOC_LINES) return bare;
  const opener = all[0] ?? '';
  const closer = all[all.length - 1] ?? '';
  if (!HEREDOC_OPENERS.includes(opener) || !closer.endsWith(HEREDOC_CLOSER_SUFFIX)) return bare;
  return markers(all, 1, all.length - 1);
}

function markers(all: readonly string[], first: number, end: number): Result<Body> {
  if (first >= end || trim(all[first] ?? '') !== BEGIN_PATCH) {
    return fail(`the first line must be '${BEGIN_PATCH}' (the patch text itself, optionally inside a bare <<'EOF' … EOF heredoc, not a shell command); resend it in Codex's patch format.`);
  }
  if (end - first < 2 || trim(all[end - 1] ?? '') !== END_PATCH) return fail(`the last line must be '${END_PATCH}'; resend the whole patch.`);
  return ok({ start: first + 1, end: end - 1 });
}

/** One file section, read from its header line (trimmed, as Codex's parse_one_hunk does). */
function readHunk(all: readonly string[], at: number, end: number): Result<Hunk> {
  const header = trim(all[at] ?? '');
  if (header.startsWith(ADD_FILE)) {
    // Codex takes the `+` lines and stops at the first other line, which must start the next section.
    let next = at + 1;
    while (next < end && (all[next] ?? '').startsWith('+')) next++;
    return ok({ target: { op: 'add', path: header.slice(ADD_FILE.length) }, next });
  }
  if (header.startsWith(DELETE_FILE)) return ok({ target: { op: 'delete', path: header.slice(DELETE_FILE.length) }, next: at + 1 });
  if (header.startsWith(UPDATE_FILE)) return readUpdate(all, at, end, header.slice(UPDATE_FILE.length));
  if (FILE_HEADERS.some((marker) => header === marker.trimEnd())) return fail(`line ${at + 1} ('${header}') has no path; put the file's path after the colon.`);
  if (header.startsWith(ENVIRONMENT_ID)) {
    return fail(`line ${at + 1} sends the patch to another Codex environment ('${ENVIRONMENT_ID}'), whose files this gate cannot check; resend the patch without that line.`);
  }
  return fail(
    `line ${at + 1} ('${header}') is not a file header where one must start: a file section begins '${ADD_FILE}<path>', '${DELETE_FILE}<path>' or '${UPDATE_FILE}<path>', and every line of an added file starts with '+'.`,
  );
}

/** An Update section: an optional Move to line right after the header, then one or more chunks. */
function readUpdate(all: readonly string[], at: number, end: number, path: string): Result<Hunk> {
  let next = at + 1;
  let moveTo: string | undefined;
  const second = next < end ? (all[next] ?? '') : '';
  // Codex matches the Move line untrimmed; newer builds trim its end, older ones keep trailing
  // whitespace in the path. Where the two disagree on the destination, refuse.
  if (second.startsWith(MOVE_TO)) {
    moveTo = second.slice(MOVE_TO.length);
    if (moveTo === '') return fail(`line ${next + 1} ('${trim(second)}') has no path; put the new path after the colon.`);
    if (trimEnd(moveTo) !== moveTo) return fail(`line ${next + 1}: the move destination ends in whitespace, which Codex versions read differently; remove it.`);
    next++;
  } else if (trim(second).startsWith(MOVE_TO)) {
    return fail(`line ${next + 1}: an indented '${MOVE_TO.trimEnd()}' line is a rename to some Codex versions and context to others; remove the indentation.`);
  }
  let chunks = 0;
  while (next < end) {
    const line = all[next] ?? '';
    if (trim(line) === '') {
      next++;
      continue;
    }
    if (line.startsWith('*')) break;
    const chunk = readChunk(all, next, end, chunks === 0);
    if (!chunk.ok) return chunk;
    chunks++;
    next = chunk.value;
  }
  if (chunks === 0) return fail(`line ${at + 1}: the update of '${path}' has no '@@' chunk of changes (Codex refuses an empty update); add the lines to change.`);
  return ok({ target: moveTo === undefined ? { op: 'update', path } : { op: 'update', path, move_to: moveTo }, next });
}

/**
 * One chunk, as Codex's parse_update_file_chunk reads it: a `@@` line (optional for the first),
 * then lines starting with ' ', '-' or '+' (or empty), up to `*** End of File` or any other line.
 * Returns the index of the line after the chunk.
 */
function readChunk(all: readonly string[], at: number, end: number, first: boolean): Result<number> {
  const opener = all[at] ?? '';
  let next = at;
  if (opener === CHUNK || opener.startsWith(CHUNK_WITH_CONTEXT)) next++;
  else if (!first) return fail(`line ${at + 1} ('${opener}'): each chunk after the first must start with a '${CHUNK}' line.`);
  let changeLines = 0;
  for (; next < end; next++) {
    const line = all[next] ?? '';
    if (line === END_OF_FILE) return changeLines === 0 ? fail(`line ${next + 1}: the chunk before '${END_OF_FILE}' has no lines.`) : ok(next + 1);
    const lead = line.charAt(0);
    if (line !== '' && lead !== ' ' && lead !== '-' && lead !== '+') {
      if (changeLines === 0) return fail(`line ${next + 1} ('${line}'): every line of a chunk starts with ' ' (context), '-' (removed) or '+' (added).`);
      return ok(next);
    }
    // Codex builds differ on whether an indented header inside an update starts a new file.
    if (lead === ' ' && FILE_HEADERS.some((marker) => trim(line).startsWith(marker))) {
      return fail(`line ${next + 1} is a context line that looks like a file header, which some Codex versions read as a new file; pick other context lines.`);
    }
    changeLines++;
  }
  return changeLines === 0 ? fail(`line ${at + 1}: the chunk has no lines.`) : ok(next);
}
