import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase64, pae, signEnvelope, type DsseEnvelope } from '../../../src/core/crypto/dsse.js';
import { verifyEnvelope } from '../../../src/core/crypto/dsse-verify.js';

const TYPE = 'http://example.com/HelloWorld';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const signer = { keyId: 'k1', privateKey };

function flipBase64(text: string): string {
  const buf = decodeBase64(text) as Buffer;
  buf[0] = (buf[0] as number) ^ 1;
  return buf.toString('base64');
}

describe('pae', () => {
  it('matches the test vector of the DSSE protocol spec', () => {
    expect(pae(TYPE, Buffer.from('hello world')).toString('utf8')).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  it('counts bytes, not characters', () => {
    expect(pae('t/é', Buffer.from('ü')).toString('utf8')).toBe('DSSEv1 4 t/é 2 ü');
  });

  it('encodes an empty type and body', () => {
    expect(pae('', Buffer.alloc(0)).toString('utf8')).toBe('DSSEv1 0  0 ');
  });
});

describe('signEnvelope / verifyEnvelope', () => {
  const env = signEnvelope(TYPE, Buffer.from('hello world'), signer);

  it('produces the standard JSON envelope', () => {
    expect(env.payload).toBe('aGVsbG8gd29ybGQ=');
    expect(env.payloadType).toBe(TYPE);
    expect(env.signatures).toHaveLength(1);
    expect(env.signatures[0]?.keyid).toBe('k1');
  });

  it('verifies under the signing key', () => {
    expect(verifyEnvelope(env, publicKey)).toBe(true);
  });

  it('accepts URL-safe base64 as the spec requires', () => {
    const urlSafe = (s: string): string => s.replace(/\+/g, '-').replace(/\//g, '_');
    const sig = env.signatures[0]?.sig as string;
    expect(verifyEnvelope({ ...env, signatures: [{ sig: urlSafe(sig) }] }, publicKey)).toBe(true);
  });

  it('rejects a tampered payload', () => {
    expect(verifyEnvelope({ ...env, payload: Buffer.from('hello world!').toString('base64') }, publicKey)).toBe(false);
  });

  it('rejects a tampered payload type', () => {
    expect(verifyEnvelope({ ...env, payloadType: 'http://example.com/Other' }, publicKey)).toBe(false);
  });

  it('rejects a tampered signature', () => {
    expect(verifyEnvelope({ ...env, signatures: [{ keyid: 'k1', sig: flipBase64(env.signatures[0]?.sig as string) }] }, publicKey)).toBe(false);
  });

  it('rejects a signature by a key other than the trusted one', () => {
    expect(verifyEnvelope(env, other.publicKey)).toBe(false);
  });

  it('ignores key ids: a forged signature does not pass by naming the trusted key', () => {
    const forged = signEnvelope(TYPE, Buffer.from('hello world'), { keyId: 'k1', privateKey: other.privateKey });
    expect(verifyEnvelope(forged, publicKey)).toBe(false);
  });

  it('passes when any one signature verifies under the trusted key', () => {
    const forged = signEnvelope(TYPE, Buffer.from('hello world'), { keyId: 'x', privateKey: other.privateKey });
    const both: DsseEnvelope = { ...env, signatures: [...forged.signatures, ...env.signatures] };
    expect(verifyEnvelope(both, publicKey)).toBe(true);
  });

  it('rejects values that are not envelopes instead of throwing', () => {
    for (const bad of [
      null,
      'x',
      {},
      { payload: 'aGk=', payloadType: TYPE },
      { payload: '%%%', payloadType: TYPE, signatures: env.signatures },
      { ...env, signatures: [] },
      { ...env, signatures: [{ sig: '' }] },
    ]) {
      expect(verifyEnvelope(bad, publicKey)).toBe(false);
    }
  });
});
