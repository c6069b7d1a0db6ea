// Reads the file a write or an edit would change, for the person asked to approve it: a regular
// text file inside the worktree, never through a link, never more than a card can show.
import type { CurrentFile } from '../core/approvals/detail.js';
import { readWorktreeFile } from './worktree-file.js';

/** Largest file read for a card: a diff of a bigger one is not something a person reviews on a phone. */
const MAX_REVIEW_FILE_BYTES = 1024 * 1024;

/**
 * The file at `rel` (relative to `worktree`, as the gate resolved the call's target) as it is now.
 * @example readForReview('/w', 'src/a.ts') // { kind: 'text', text: 'export const a = 1;\n' }
 */
export function readForReview(worktree: string, rel: string): CurrentFile {
  if (rel === '..' || rel.startsWith('../') || rel.startsWith('/')) return { kind: 'unreadable', why: 'it is outside the worktree' };
  const f = readWorktreeFile(worktree, rel, MAX_REVIEW_FILE_BYTES);
  if (f.kind === 'missing') return f;
  if (f.kind === 'omitted') return { kind: 'unreadable', why: f.why };
  if (f.data.includes(0)) return { kind: 'unreadable', why: 'it is a binary file' };
  return { kind: 'text', text: f.data.toString('utf8') };
}
