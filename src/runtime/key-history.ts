// Key rotation and the project's key history: retired public keys kept in `<state>/keys/retired/`
// so checkpoints signed before a rotation still verify. Kept apart from keys.ts, which hooks load.
import type { KeyObject } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { readRegularText } from './small-file.js';
import { generateKey, keyIdOf, keysDir, loadKey, loadOrCreateKey, PRIVATE_FILE, publicKeyFromPem } from './keys.js';
import type { SigningKey } from './keys.js';

const RETIRED_DIR = 'retired';
/** More than any PEM public key Gatehouse writes: past it, the file is no key of ours. */
const PEM_MAX_BYTES = 64 << 10;

/** Replaces the current key with a new one; the old public key stays in `keys/retired/`. */
export function rotateKey(projectState: string): { previous: SigningKey; current: SigningKey } {
  const previous = loadOrCreateKey(projectState);
  const dir = keysDir(projectState);
  mkdirSync(join(dir, RETIRED_DIR), { recursive: true, mode: 0o700 });
  writeFileAtomic(join(dir, RETIRED_DIR, `${previous.keyId}.pub.pem`), previous.publicKeyPem, { mode: 0o644 });
  renameSync(join(dir, PRIVATE_FILE), join(dir, RETIRED_DIR, `${previous.keyId}.key.pem`));
  const current = generateKey(dir);
  return { previous, current };
}

/** Public keys of every key this project has used (current and retired), by key id. */
export function knownPublicKeys(projectState: string): Map<string, KeyObject> {
  const out = new Map<string, KeyObject>();
  const current = loadKey(projectState);
  if (current) out.set(current.keyId, current.publicKey);
  try {
    for (const f of readdirSync(join(keysDir(projectState), RETIRED_DIR))) {
      if (!f.endsWith('.pub.pem')) continue;
      const k = publicKeyFromPem(readRegularText(join(keysDir(projectState), RETIRED_DIR, f), { max: PEM_MAX_BYTES }));
      out.set(keyIdOf(k), k);
    }
  } catch {
    // No retired keys.
  }
  return out;
}
