// Verifying a signed note (C2SP signed-note) against one trusted key. Kept apart from signing,
// which the hook does on every sealed event, so the hook's bundle carries no verifier.
import { verify, type KeyObject } from 'node:crypto';
import { ED25519_SIGNATURE_BYTES, noteKeyHash, parseNote } from './signed-note.js';

/**
 * Verifies a note against one trusted key, identified by name and key hash as the spec
 * says; signatures by other keys are ignored. Returns the signed text on success.
 * @example const r = verifyNote(note, key.name, key.publicKey); if (r.ok) parseCheckpoint(r.body)
 */
export function verifyNote(note: string, keyName: string, publicKey: KeyObject): { ok: true; body: string } | { ok: false; reason: string } {
  const parsed = parseNote(note);
  if (!parsed.ok) return parsed;
  const keyHash = noteKeyHash(keyName, publicKey);
  const mine = parsed.value.signatures.filter((s) => s.name === keyName && s.keyHash.equals(keyHash));
  if (mine.length === 0) {
    const names = [...new Set(parsed.value.signatures.map((s) => s.name))].join(', ');
    return { ok: false, reason: `The note carries no signature by key ${keyName} (it is signed by ${names}).` };
  }
  const text = Buffer.from(parsed.value.body, 'utf8');
  for (const s of mine) {
    if (s.signature.length !== ED25519_SIGNATURE_BYTES || !verify(null, text, publicKey, s.signature)) {
      return { ok: false, reason: `The signature by key ${keyName} does not verify: the note text was altered after signing.` };
    }
  }
  return { ok: true, body: parsed.value.body };
}
