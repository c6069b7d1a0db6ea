// Key rotation endorsements: the outgoing key signs the incoming key's id, so a verifier
// that trusts the old key can learn the new one from the `key_rotated` audit event.
import { sign, verify, type KeyObject } from 'node:crypto';
import { fail, ok, type Result } from '../../core/result.js';
import { keyIdOf, publicKeyFromPem, type SigningKey } from '../keys.js';
import type { AuditEventDataMap } from './events.js';

/** The exact bytes the previous key signs; the context line keeps it from meaning anything else. */
function rotationMessage(previousKeyId: string, keyId: string): string {
  return `gatehouse-key-rotation\n${previousKeyId}\n${keyId}\n`;
}

/**
 * Base64 Ed25519 signature by `prev` over {@link rotationMessage}(prev, next).
 * @example rotationEndorsement(previous, current)
 */
export function rotationEndorsement(prev: SigningKey, next: SigningKey): string {
  return sign(null, Buffer.from(rotationMessage(prev.keyId, next.keyId), 'utf8'), prev.privateKey).toString('base64');
}

/** The `data` of a `key_rotated` event for a rotation from `prev` to `next`. */
export function keyRotatedData(prev: SigningKey, next: SigningKey): AuditEventDataMap['key_rotated'] {
  return { previous_key_id: prev.keyId, key_id: next.keyId, public_key_pem: next.publicKeyPem, endorsement: rotationEndorsement(prev, next) };
}

/**
 * Checks a `key_rotated` event against the previous key's public key; on success returns
 * the new public key, which the caller may then trust as the old one's successor.
 */
export function verifyRotationEndorsement(data: AuditEventDataMap['key_rotated'], previousPublicKey: KeyObject): Result<KeyObject> {
  if (keyIdOf(previousPublicKey) !== data.previous_key_id) return fail(`The rotation names previous key ${data.previous_key_id.slice(0, 16)}, not this key.`);
  let next: KeyObject;
  try {
    next = publicKeyFromPem(data.public_key_pem);
  } catch {
    return fail('The rotation carries a public key that is not an Ed25519 PEM key.');
  }
  if (keyIdOf(next) !== data.key_id) return fail("The rotation's key_id is not the id of the public key it carries.");
  const signature = Buffer.from(data.endorsement, 'base64');
  const message = Buffer.from(rotationMessage(data.previous_key_id, data.key_id), 'utf8');
  if (!verify(null, message, previousPublicKey, signature)) return fail(`The rotation to key ${data.key_id.slice(0, 16)} is not endorsed by key ${data.previous_key_id.slice(0, 16)}.`);
  return ok(next);
}
