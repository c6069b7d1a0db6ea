// The one check that a parsed JSON value is an object with keys (not null, not an array),
// used wherever untrusted JSON — hook input, transcripts, agent config — is read.

/** True when `v` is a plain JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
