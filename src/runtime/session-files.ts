// Gatehouse does not trust its own session files once the agent runs: the policy and the
// baseline are read back only when their bytes hash to the digests recorded at session start.
import { join } from 'node:path';
import { sha256Hex } from '../core/crypto/sha256.js';
import type { Policy } from '../core/policy.js';
import type { Result } from '../core/result.js';
import { checkShape, list, object, pair, text } from '../core/shape.js';
import type { Baseline, BaselineTexts } from './scope-baseline.js';
import { MAX_STATE_FILE_BYTES, readSmallBytes } from './small-file.js';

/** A session file that was read and matches its recorded digest, or why it cannot be trusted. */
export type Verified<T> = { ok: true; value: T } | { ok: false; tampered: true; reason: string; actual: string | null };

/** The baseline's file name in a session folder (SESSION_FILES.baseline; not imported, to keep this module light). */
const SESSION_BASELINE_FILE = 'baseline.json';
/** The file of the texts the baseline was stored without (SESSION_FILES.baselineText). */
const SESSION_BASELINE_TEXT_FILE = 'baseline-text.json';

/** Lowercase hex SHA-256: how session file digests are written (hook command, policy, audit log). */
export const SHA256_HEX_RE = /^[0-9a-f]{64}$/;

/**
 * Reads a JSON session file and returns it only if its exact bytes hash to `expected` and, given
 * `check`, its content passes it. A file that cannot be read, differs, or does not parse is
 * tampering: after start nothing rewrites these files, so any of those means something else did.
 * One that matches but fails `check` was written by a Gatehouse that wrote another format, or
 * recorded wrongly: it cannot be trusted either. Without `check` the value is taken as `T`: the
 * baseline is checked where it is compared (`assertBaseline`).
 * @example readVerifiedJson(join(dir, 'policy.json'), digestFromHookCommand, 'policy.json', checkPolicy)
 */
export function readVerifiedJson<T>(file: string, expected: string, what: string, check?: (value: unknown) => Result<T>): Verified<T> {
  // A link is followed (its target's bytes must still hash to the digest); a FIFO is never read.
  const bytes = readSmallBytes(file, MAX_STATE_FILE_BYTES, { followLink: true });
  if (bytes === null) {
    return {
      ok: false,
      tampered: true,
      actual: null,
      reason: `${what} cannot be read as the regular file the session recorded at start (it is missing, a FIFO or another special file, or changed while read)`,
    };
  }
  const actual = sha256Hex(bytes);
  if (actual !== expected) {
    return { ok: false, tampered: true, actual, reason: `${what} was changed after the session started (sha256 ${actual.slice(0, 12)}…, recorded ${expected.slice(0, 12)}…)` };
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    // Cannot happen for bytes that match what start wrote; kept for a digest recorded wrongly.
    return { ok: false, tampered: true, actual, reason: `${what} matches its digest but is not JSON` };
  }
  if (check === undefined) return { ok: true, value: value as T };
  const checked = check(value);
  if (!checked.ok) return { ok: false, tampered: true, actual, reason: `${what} matches its digest but is not in the format this Gatehouse reads (${checked.reason})` };
  return { ok: true, value: checked.value };
}

/** How a session file is read and verified: {@link readVerifiedJson}, or a long-lived host's kept copy of it (verified-cache.ts). */
export type VerifiedReader = <T>(file: string, expected: string, what: string) => Verified<T>;

/**
 * The session's baseline, only if it still matches the digest in the (verified) policy. The
 * Stop reads it before anything of the agent's runs: a required check is the agent's code.
 */
export function loadSessionBaseline(policy: Policy, sessionDir: string, read: VerifiedReader = readVerifiedJson): Verified<Baseline | null> {
  if (policy.allow.length === 0) return { ok: true, value: null };
  if (typeof policy.baseline_sha256 !== 'string') return { ok: false, tampered: true, actual: null, reason: 'the session was started by an older Gatehouse, whose policy names no baseline digest' };
  return read<Baseline>(join(sessionDir, SESSION_BASELINE_FILE), policy.baseline_sha256, 'the scope baseline (baseline.json)');
}

const Texts = object({ control: list(pair(text(), text())), watch: list(pair(text(), text())) }, { strict: true });

/**
 * The texts a session's baseline was stored without (`texts_sha256`), for a refusal's hint, only
 * if baseline-text.json's bytes hash to the digest the (verified) baseline recorded. A file that
 * cannot be read or differs gives no texts: the refusal then names the changed file without the
 * lines to put back, and stands either way (a hint never decides anything).
 */
export function loadBaselineTexts(expected: string, sessionDir: string): Verified<BaselineTexts> {
  return readVerifiedJson(join(sessionDir, SESSION_BASELINE_TEXT_FILE), expected, "the baseline's file texts (baseline-text.json)", (v) => checkShape(Texts, v));
}
