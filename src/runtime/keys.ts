// The project's Ed25519 signing key: made on first use in `<state>/keys/` (private key
// 0600), identified by the hex SHA-256 of its SPKI DER. Rotation lives in key-history.ts.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';

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

/** Hex SHA-256 of a public key's SPKI DER encoding. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
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
  const privateKey = createPrivateKey(pem);
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
  const file = join(dir, PRIVATE_FILE);
  if (existsSync(file)) return fromPrivatePem(readFileSync(file, 'utf8'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return generateKey(dir);
}

/** Loads the current key without creating one; null when there is none yet. */
export function loadKey(projectState: string): SigningKey | null {
  const file = join(keysDir(projectState), PRIVATE_FILE);
  return existsSync(file) ? fromPrivatePem(readFileSync(file, 'utf8')) : null;
}
