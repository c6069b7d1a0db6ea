// The project's Ed25519 signing key: made on first use in `<state>/keys/` (private key
// 0600), identified by the hex SHA-256 of its SPKI DER. Rotation lives in key-history.ts.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { lstatOrNull, readSmallBytes } from './small-file.js';

/** A loaded signing key. */
export interface SigningKey {
  /** Hex SHA-256 of the public key's SPKI DER. */
  keyId: string;
  /** Name used in signed notes (checkpoints): `gatehouse-<first 16 hex of keyId>`. */
  name: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
  publicKeyPem: string;
}

/** The current private key's file name in `<state>/keys/`. */
export const PRIVATE_FILE = 'ed25519.key.pem';
const PUBLIC_FILE = 'ed25519.pub.pem';
/** Largest key file read: a PKCS#8 PEM of an Ed25519 key is 119 bytes. */
const MAX_KEY_FILE_BYTES = 64 << 10;

/** RFC 8410: an Ed25519 key's SPKI DER is this prefix and the 32-byte public key. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** RFC 8410: an Ed25519 key's PKCS#8 DER (no attributes, no public key) is this prefix and the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519_KEY_BYTES = 32;

/**
 * A public key's SPKI DER. An Ed25519 key's is put together from its raw bytes (read through JWK):
 * OpenSSL's DER encoder costs a cold hook process about 0.5 ms for the same 44 bytes.
 */
function spkiDer(publicKey: KeyObject): Buffer {
  if (publicKey.asymmetricKeyType === 'ed25519') {
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
    if (raw.length === ED25519_KEY_BYTES) return Buffer.concat([ED25519_SPKI_PREFIX, raw]);
  }
  return publicKey.export({ type: 'spki', format: 'der' });
}

/** Hex SHA-256 of a public key's SPKI DER encoding. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(spkiDer(publicKey)).digest('hex');
}

/**
 * A private key from its PEM. An Ed25519 PKCS#8 key as Gatehouse writes it is taken from its raw
 * seed (through JWK), which skips OpenSSL's PEM decoders (about 0.3 ms of a cold hook); any other
 * PEM goes to them.
 */
function privateKeyFromPem(pem: string): KeyObject {
  const body = /^-----BEGIN PRIVATE KEY-----\n([A-Za-z0-9+/=\n]+)-----END PRIVATE KEY-----\n?$/.exec(pem)?.[1];
  const der = body === undefined ? null : Buffer.from(body, 'base64');
  if (der !== null && der.length === ED25519_PKCS8_PREFIX.length + ED25519_KEY_BYTES && der.subarray(0, ED25519_PKCS8_PREFIX.length).equals(ED25519_PKCS8_PREFIX)) {
    try {
      // `x` must be a string but is unused for a private key: Node derives the public key from `d`.
      return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: der.subarray(ED25519_PKCS8_PREFIX.length).toString('base64url'), x: '' }, format: 'jwk' });
    } catch {
      // A Node that wants more of a JWK: the PEM below is the same key.
    }
  }
  return createPrivateKey(pem);
}

/** The signed-note key name for a key id. */
export function keyNameOf(keyId: string): string {
  return `gatehouse-${keyId.slice(0, 16)}`;
}

/** Parses a PEM public key (SPKI); throws on anything else. */
export function publicKeyFromPem(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`expected an Ed25519 public key, got ${key.asymmetricKeyType ?? 'unknown'}`);
  return key;
}

/** The project's key folder. */
export function keysDir(projectState: string): string {
  return join(projectState, 'keys');
}

/**
 * Keys parsed in this process, by their PEM text: a long-lived host (the warm supervisor)
 * signs twice per Stop, and parsing the same text again yields the same key. A handful
 * covers a `serve --all` host's projects and a rotation.
 */
const PARSED_MAX = 8;
const parsed = new Map<string, SigningKey>();

function fromPrivatePem(pem: string): SigningKey {
  const known = parsed.get(pem);
  if (known !== undefined) return known;
  const privateKey = privateKeyFromPem(pem);
  const publicKey = createPublicKey(privateKey);
  const keyId = keyIdOf(publicKey);
  const key = { keyId, name: keyNameOf(keyId), publicKey, privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  parsed.set(pem, key);
  return key;
}

/** Makes a new current key in `dir`; the private key is written first and alone decides which key is current. */
export function generateKey(dir: string): SigningKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const key = fromPrivatePem(pem);
  // The private key is written first and alone decides which key is current.
  writeFileAtomic(join(dir, PRIVATE_FILE), pem, { mode: 0o600 });
  writeFileAtomic(join(dir, PUBLIC_FILE), key.publicKeyPem, { mode: 0o644 });
  return key;
}

/** Loads the project's current key, creating it on first use. */
export function loadOrCreateKey(projectState: string): SigningKey {
  const dir = keysDir(projectState);
  const key = readKey(join(dir, PRIVATE_FILE));
  if (key !== null) return key;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return generateKey(dir);
}

/** Loads the current key without creating one; null when there is none yet. */
export function loadKey(projectState: string): SigningKey | null {
  return readKey(join(keysDir(projectState), PRIVATE_FILE));
}

/**
 * The key in `file`; null when nothing is there. Anything there but a small regular file (a FIFO
 * planted in its place would block the read, and the hook with it) is an error, never a new key.
 */
function readKey(file: string): SigningKey | null {
  if (lstatOrNull(file) === null) return null;
  const pem = readSmallBytes(file, MAX_KEY_FILE_BYTES);
  if (pem === null) throw new Error(`the signing key ${file} is not a small regular file: remove what is there, or restore the key`);
  return fromPrivatePem(pem.toString('utf8'));
}
