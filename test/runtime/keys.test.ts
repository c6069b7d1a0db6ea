// The project's signing key as a long-lived host loads it at every seal: parsed once per PEM
// text, and always the key the file holds now.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey, keyIdOf, keysDir, loadOrCreateKey, PRIVATE_FILE } from '../../src/runtime/keys.js';
import { noteKeyHash } from '../../src/core/crypto/signed-note.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('loadOrCreateKey', () => {
  it('parses an unchanged key file once, and loads the new key once the file holds another', () => {
    const state = mkdtempSync(join(tmpdir(), 'gh-keys-'));
    dirs.push(state);
    const first = loadOrCreateKey(state);
    expect(loadOrCreateKey(state)).toBe(first);
    const next = generateKey(keysDir(state));
    expect(next.keyId).not.toBe(first.keyId);
    expect(loadOrCreateKey(state).keyId).toBe(next.keyId);
  });
});

describe('the key as parsed from its raw seed', () => {
  const state = () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-keys-'));
    dirs.push(dir);
    return dir;
  };
  const opensslId = (pem: string) =>
    createHash('sha256')
      .update(createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'der' }))
      .digest('hex');

  it('is the key OpenSSL reads from the same PEM: the same id, and signatures its public key verifies', () => {
    const dir = state();
    const key = loadOrCreateKey(dir);
    const pem = readFileSync(join(keysDir(dir), PRIVATE_FILE), 'utf8');
    expect(key.keyId).toBe(opensslId(pem));
    expect(keyIdOf(createPublicKey(pem))).toBe(key.keyId);
    const data = Buffer.from('a checkpoint');
    expect(verify(null, data, createPublicKey(createPrivateKey(pem)), sign(null, data, key.privateKey))).toBe(true);
    expect(key.publicKeyPem).toBe(createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'pem' }).toString());
  });

  it('reads a PEM it did not write (another layout, another key type) through OpenSSL, to the same id', () => {
    for (const type of ['ed25519', 'ec'] as const) {
      const dir = state();
      mkdirSync(keysDir(dir), { recursive: true });
      const pair = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
      // Wrapped at 40 columns: not the one-line body Gatehouse writes.
      const b64 = pair.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
      const pem = `-----BEGIN PRIVATE KEY-----\n${b64.match(/.{1,40}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
      writeFileSync(join(keysDir(dir), PRIVATE_FILE), pem);
      expect(loadOrCreateKey(dir).keyId).toBe(opensslId(pem));
    }
  });

  it('gives signed notes the raw public key OpenSSL encodes', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const der = publicKey.export({ type: 'spki', format: 'der' });
    const raw = der.subarray(der.length - 32);
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from('gatehouse-x\n\x01', 'latin1'), raw]))
      .digest()
      .subarray(0, 4);
    expect(noteKeyHash('gatehouse-x', publicKey).equals(expected)).toBe(true);
  });
});
