// Verifying a DSSE envelope against the key the operator trusts. Kept apart from signing, which
// the hook does for every sealed verdict, so the hook's bundle carries no verifier.
import { verify, type KeyObject } from 'node:crypto';
import { decodeBase64, isEnvelope, MAX_SIGNATURES, pae } from './dsse.js';

/**
 * True only if some signature verifies under `trustedPublicKey`, the key the operator
 * trusts; keys or key ids carried by the envelope are ignored.
 * @example if (!verifyEnvelope(env, operatorKey)) reject()
 */
export function verifyEnvelope(env: unknown, trustedPublicKey: KeyObject): boolean {
  if (!isEnvelope(env) || env.signatures.length > MAX_SIGNATURES) return false;
  const payload = decodeBase64(env.payload);
  if (payload === null) return false;
  const message = pae(env.payloadType, payload);
  return env.signatures.some((s) => {
    const sig = decodeBase64(s.sig);
    if (sig === null || sig.length === 0) return false;
    try {
      return verify(null, message, trustedPublicKey, sig);
    } catch {
      // A key type that cannot verify this signature shape: not a match.
      return false;
    }
  });
}
