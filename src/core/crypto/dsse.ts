// DSSE (Dead Simple Signing Envelope, secure-systems-lab/dsse protocol v1.0.0): signs
// PAE(payloadType, payload) so the type is authenticated with the body; Ed25519 keys.
import { sign, type KeyObject } from 'node:crypto';

/** One signature of an envelope; `keyid` is an unauthenticated hint, never trusted. */
interface DsseSignature {
  keyid?: string;
  /** base64 of the raw signature over PAE(payloadType, payload). */
  sig: string;
}

/** The DSSE JSON envelope. */
export interface DsseEnvelope {
  /** base64 of the serialized body. */
  payload: string;
  payloadType: string;
  signatures: DsseSignature[];
}

/** The signer's side of a key. */
export interface DsseSigner {
  keyId: string;
  privateKey: KeyObject;
}

/** Envelopes with more signatures than this are rejected unread: one signer is expected, a few allow rotation overlap. */
export const MAX_SIGNATURES = 16;

const PAE_PREFIX = 'DSSEv1';
/** Standard or URL-safe base64 (the spec says verifiers must accept both), padding optional. */
const BASE64_RE = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Pre-Authentication Encoding: `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths in bytes.
 * @example pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString() // 'DSSEv1 29 http://example.com/HelloWorld 11 hello world'
 */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`${PAE_PREFIX} ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

/**
 * Signs `payload` as `payloadType` and wraps it in a one-signature envelope.
 * @example const env = signEnvelope('application/vnd.in-toto+json', body, { keyId: key.keyId, privateKey: key.privateKey })
 */
export function signEnvelope(payloadType: string, payload: Buffer, signer: DsseSigner): DsseEnvelope {
  // Ed25519 takes no digest algorithm: it hashes the message itself.
  const sig = sign(null, pae(payloadType, payload), signer.privateKey);
  return { payload: payload.toString('base64'), payloadType, signatures: [{ keyid: signer.keyId, sig: sig.toString('base64') }] };
}

/** Decodes strict base64 (either alphabet); null when the text is not base64. */
export function decodeBase64(text: unknown): Buffer | null {
  if (typeof text !== 'string' || !BASE64_RE.test(text)) return null;
  return Buffer.from(text, 'base64');
}

/** The payload bytes of an envelope-shaped value; null when it is not an envelope. */
export function envelopePayload(env: unknown): Buffer | null {
  if (!isEnvelope(env)) return null;
  return decodeBase64(env.payload);
}

/** True if `value` has the shape of a DSSE envelope (no signature checked). */
export function isEnvelope(value: unknown): value is DsseEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.payload === 'string' &&
    typeof v.payloadType === 'string' &&
    Array.isArray(v.signatures) &&
    v.signatures.every((s) => typeof s === 'object' && s !== null && typeof (s as Record<string, unknown>).sig === 'string')
  );
}
