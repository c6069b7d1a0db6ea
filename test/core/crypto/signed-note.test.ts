import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emptyRoot, leafHash } from '../../../src/core/crypto/merkle.js';
import { formatCheckpoint, noteKeyHash, parseCheckpoint, parseNote, signNote } from '../../../src/core/crypto/signed-note.js';
import { verifyNote } from '../../../src/core/crypto/signed-note-verify.js';

// The published example of golang.org/x/mod/sumdb/note (note.go, note_test.go), which
// the C2SP signed-note spec was written down from. Ed25519 is deterministic, so signing
// the same text with the same key must give the same note byte for byte.
const GO_SIGNER = 'AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz'; // 0x01 || seed
const GO_VERIFIER = 'ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'; // 0x01 || public key
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

// DER prefixes that wrap a raw Ed25519 seed (PKCS#8) or public key (SPKI).
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

function goKeys(): { privateKey: KeyObject; publicKey: KeyObject } {
  const seed = Buffer.from(GO_SIGNER, 'base64').subarray(1);
  const pub = Buffer.from(GO_VERIFIER, 'base64').subarray(1);
  return {
    privateKey: createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' }),
    publicKey: createPublicKey({ key: Buffer.concat([SPKI_ED25519, pub]), format: 'der', type: 'spki' }),
  };
}

function freshKeys(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

describe('signed notes', () => {
  it('reproduces the published Go example note byte for byte, key hash included', () => {
    const { privateKey, publicKey } = goKeys();
    expect(noteKeyHash('PeterNeumann', publicKey).toString('hex')).toBe('c74f20a3');
    expect(signNote(GO_TEXT, 'PeterNeumann', privateKey, publicKey)).toBe(GO_NOTE);
    expect(verifyNote(GO_NOTE, 'PeterNeumann', publicKey)).toEqual({ ok: true, body: GO_TEXT });
  });

  it('names each key by its own bytes, however often and in whatever order the keys are used', () => {
    const go = goKeys().publicKey;
    const other = freshKeys().publicKey;
    const first = [noteKeyHash('PeterNeumann', go), noteKeyHash('PeterNeumann', other), noteKeyHash('other', go)].map((b) => b.toString('hex'));
    expect(first[0]).toBe('c74f20a3');
    expect(new Set(first).size).toBe(3);
    for (let i = 0; i < 3; i++) {
      expect([noteKeyHash('PeterNeumann', go), noteKeyHash('PeterNeumann', other), noteKeyHash('other', go)].map((b) => b.toString('hex'))).toEqual(first);
    }
    // A key whose bytes are another's (the same public key, loaded twice) has the same hash.
    expect(noteKeyHash('PeterNeumann', goKeys().publicKey).toString('hex')).toBe('c74f20a3');
  });

  it('rejects the published note once one letter of its text changes', () => {
    const r = verifyNote(GO_NOTE.replace('cryptography', 'cryptographY'), 'PeterNeumann', goKeys().publicKey);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/does not verify/);
  });

  it('round-trips a checkpoint through sign, verify and parse', () => {
    const k = freshKeys();
    const root = leafHash('x');
    const body = formatCheckpoint({ origin: 'gatehouse/project', size: 42, root });
    expect(body).toBe(`gatehouse/project\n42\n${root.toString('base64')}\n`);
    const note = signNote(body, 'gatehouse-0123456789abcdef', k.privateKey, k.publicKey);
    const v = verifyNote(note, 'gatehouse-0123456789abcdef', k.publicKey);
    expect(v).toEqual({ ok: true, body });
    const cp = parseCheckpoint(body);
    expect(cp.ok && cp.value.size === 42 && Buffer.from(cp.value.root).equals(root) && cp.value.origin === 'gatehouse/project').toBe(true);
  });

  it('rejects a note signed by another key under the same name, and names the signer otherwise', () => {
    const a = freshKeys();
    const b = freshKeys();
    const note = signNote(formatCheckpoint({ origin: 'o', size: 0, root: emptyRoot() }), 'log', a.privateKey, a.publicKey);
    const sameName = verifyNote(note, 'log', b.publicKey);
    expect(sameName.ok).toBe(false);
    if (!sameName.ok) expect(sameName.reason).toMatch(/no signature by key log/);
    const otherName = verifyNote(note, 'other', a.publicKey);
    expect(otherName.ok).toBe(false);
    if (!otherName.ok) expect(otherName.reason).toMatch(/signed by log/);
  });

  it('rejects a swapped signature for the right key hash', () => {
    const a = freshKeys();
    const n1 = signNote('one\n', 'log', a.privateKey, a.publicKey);
    const n2 = signNote('two\n', 'log', a.privateKey, a.publicKey);
    const forged = 'one\n' + n2.slice('two\n'.length);
    expect(verifyNote(n1, 'log', a.publicKey).ok).toBe(true);
    expect(verifyNote(forged, 'log', a.publicKey).ok).toBe(false);
  });

  it('ignores signatures by unknown keys next to a good one', () => {
    const a = freshKeys();
    const b = freshKeys();
    const note = signNote('text\n', 'log', a.privateKey, a.publicKey);
    const other = signNote('text\n', 'witness', b.privateKey, b.publicKey).split('\n\n')[1]!;
    expect(verifyNote(note + other, 'log', a.publicKey)).toEqual({ ok: true, body: 'text\n' });
  });

  it('refuses malformed notes', () => {
    const a = freshKeys();
    const note = signNote('text\n', 'log', a.privateKey, a.publicKey);
    expect(parseNote(note.slice(0, -1)).ok).toBe(false);
    expect(parseNote('text\n\n').ok).toBe(false);
    expect(parseNote('text\n\u2014 log !!!\n').ok).toBe(false);
    expect(parseNote('te\u0007xt\n' + note.slice(5)).ok).toBe(false);
    expect(parseNote(note.replace('\u2014 ', '- ')).ok).toBe(false);
    expect(() => signNote('no newline', 'log', a.privateKey, a.publicKey)).toThrow();
    expect(() => signNote('x\n', 'bad name', a.privateKey, a.publicKey)).toThrow();
    expect(() => signNote('x\n', 'bad+name', a.privateKey, a.publicKey)).toThrow();
  });

  it('refuses malformed checkpoint texts', () => {
    const root = emptyRoot().toString('base64');
    expect(parseCheckpoint(`o\n1\n${root}`).ok).toBe(false);
    expect(parseCheckpoint(`o\n01\n${root}\n`).ok).toBe(false);
    expect(parseCheckpoint(`o\n-1\n${root}\n`).ok).toBe(false);
    expect(parseCheckpoint(`\n1\n${root}\n`).ok).toBe(false);
    expect(parseCheckpoint(`o\n1\n${root.slice(4)}\n`).ok).toBe(false);
    expect(parseCheckpoint(`o\n1\n${root}\n\n`).ok).toBe(false);
    const ext = parseCheckpoint(`o\n0\n${root}\nextra line\n`);
    expect(ext.ok && ext.value.extensions).toEqual(['extra line']);
    expect(() => formatCheckpoint({ origin: 'a\nb', size: 1, root: emptyRoot() })).toThrow();
    expect(() => formatCheckpoint({ origin: 'a', size: -1, root: emptyRoot() })).toThrow();
    expect(() => formatCheckpoint({ origin: 'a', size: 1, root: Buffer.alloc(3) })).toThrow();
  });
});
