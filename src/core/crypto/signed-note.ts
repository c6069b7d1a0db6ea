// C2SP signed notes (Ed25519) and tlog checkpoints: the text format in which a log's
// tree head is signed, so any tlog tool can read and verify our checkpoints.
import { createHash, sign, type KeyObject } from 'node:crypto';
import { fail, ok, type Result } from '../result.js';
import { HASH_SIZE } from './merkle.js';

/** A tree head: the log's name, its number of leaves and its RFC 6962 root. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/** One `— <name> <base64>` line of a note. */
interface NoteSignature {
  name: string;
  /** The 4-byte key hash that opens the signature blob. */
  keyHash: Buffer;
  /** The signature proper, without the key hash. */
  signature: Buffer;
}

/** A note split into its signed text and its signature lines (nothing verified yet). */
export interface ParsedNote {
  body: string;
  signatures: NoteSignature[];
}

// The spec requires accepting at least 16; more than this is not a Gatehouse note.
const MAX_NOTE_SIGNATURES = 64;
// A checkpoint is ~150 bytes; 256 KiB still fits 16 post-quantum (~5 kB) signatures.
const MAX_NOTE_BYTES = 256 * 1024;
// Signature type byte for Ed25519 in the key hash (signed-note §Signature types).
const ED25519_TYPE = 0x01;
const KEY_HASH_BYTES = 4;
/** An Ed25519 signature's length: anything else cannot verify. */
export const ED25519_SIGNATURE_BYTES = 64;
const ED25519_RAW_KEY_BYTES = 32;
const SIG_PREFIX = '\u2014 ';
const KEY_NAME = /^[^\s+]+$/u;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const TREE_SIZE = /^(0|[1-9][0-9]*)$/;

/** The spec forbids ASCII control characters other than newline anywhere in a note. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a) return true;
  }
  return false;
}

/** Decodes strict, canonical standard base64; null for anything else. */
function decodeBase64(text: string): Buffer | null {
  if (!BASE64.test(text) || text.length % 4 !== 0) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

/** Each key's raw bytes, exported once: an export costs about 80 µs, and every signature and check needs them. */
const rawKeys = new WeakMap<KeyObject, Buffer>();

function rawEd25519(publicKey: KeyObject): Buffer {
  const known = rawKeys.get(publicKey);
  if (known !== undefined) return known;
  if (publicKey.asymmetricKeyType !== 'ed25519') throw new Error(`signed notes here use Ed25519 keys, got ${publicKey.asymmetricKeyType ?? 'unknown'}`);
  // Read through JWK: OpenSSL's DER encoder costs a cold hook process about 0.5 ms for the same bytes.
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  if (raw.length !== ED25519_RAW_KEY_BYTES) throw new Error('an Ed25519 public key has 32 bytes');
  rawKeys.set(publicKey, raw);
  return raw;
}

/** Whether `name` may name a note key: non-empty, no Unicode spaces, no `+`. */
function isValidKeyName(name: string): boolean {
  return KEY_NAME.test(name);
}

/** First 4 bytes of SHA-256(name || 0x0A || 0x01 || raw 32-byte Ed25519 public key). */
export function noteKeyHash(name: string, publicKey: KeyObject): Buffer {
  const h = createHash('sha256')
    .update(name, 'utf8')
    .update(Buffer.from([0x0a, ED25519_TYPE]))
    .update(rawEd25519(publicKey));
  return h.digest().subarray(0, KEY_HASH_BYTES);
}

/**
 * The checkpoint note text: origin, tree size and base64 root, one per line.
 * @example formatCheckpoint({ origin: 'gatehouse/p', size: 3, root }) // 'gatehouse/p\n3\n…=\n'
 */
export function formatCheckpoint(cp: Checkpoint): string {
  if (cp.origin === '' || cp.origin.includes('\n') || hasControl(cp.origin)) throw new Error('formatCheckpoint: the origin must be one non-empty line without control characters');
  if (!Number.isSafeInteger(cp.size) || cp.size < 0) throw new Error(`formatCheckpoint: bad tree size ${cp.size}`);
  if (cp.root.length !== HASH_SIZE) throw new Error(`formatCheckpoint: the root must be ${HASH_SIZE} bytes`);
  return `${cp.origin}\n${cp.size}\n${Buffer.from(cp.root).toString('base64')}\n`;
}

/** Reads a checkpoint note text back; extension lines are returned, not interpreted. */
export function parseCheckpoint(body: string): Result<Checkpoint & { extensions: string[] }> {
  if (!body.endsWith('\n')) return fail('The checkpoint text must end with a newline.');
  const lines = body.slice(0, -1).split('\n');
  const [origin, size, root, ...extensions] = lines;
  if (origin === undefined || size === undefined || root === undefined) return fail('A checkpoint has at least three lines: origin, tree size, root hash.');
  if (origin === '') return fail('The checkpoint origin line is empty.');
  if (!TREE_SIZE.test(size) || !Number.isSafeInteger(Number(size))) return fail(`The checkpoint tree size "${size}" is not a decimal number without leading zeros.`);
  const rootBytes = decodeBase64(root);
  if (rootBytes === null || rootBytes.length !== HASH_SIZE) return fail('The checkpoint root line is not the base64 of a 32-byte hash.');
  if (extensions.some((l) => l === '')) return fail('A checkpoint extension line is empty.');
  return ok({ origin, size: Number(size), root: rootBytes, extensions });
}

/**
 * Signs `body` (text ending in a newline) with an Ed25519 key: body, blank line, one
 * signature line.
 * @example signNote(formatCheckpoint(cp), key.name, key.privateKey, key.publicKey)
 */
export function signNote(body: string, keyName: string, privateKey: KeyObject, publicKey: KeyObject): string {
  if (!body.endsWith('\n') || hasControl(body)) throw new Error('signNote: the text must end with a newline and hold no control characters but newlines');
  if (!isValidKeyName(keyName)) throw new Error(`signNote: "${keyName}" is not a valid key name (no spaces or "+")`);
  const signature = sign(null, Buffer.from(body, 'utf8'), privateKey);
  const blob = Buffer.concat([noteKeyHash(keyName, publicKey), signature]).toString('base64');
  return `${body}\n${SIG_PREFIX}${keyName} ${blob}\n`;
}

/** Splits a note into its text and signature lines, checking only the syntax. */
export function parseNote(note: string): Result<ParsedNote> {
  if (note.length > MAX_NOTE_BYTES) return fail(`The note is larger than ${MAX_NOTE_BYTES} bytes.`);
  if (hasControl(note)) return fail('The note holds control characters other than newline.');
  if (!note.endsWith('\n')) return fail('The note must end with a newline.');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return fail('The note has no blank line between its text and its signatures.');
  const body = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length === 1 && lines[0] === '') return fail('The note has no signatures.');
  if (lines.length > MAX_NOTE_SIGNATURES) return fail(`The note has more than ${MAX_NOTE_SIGNATURES} signatures.`);
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    if (!line.startsWith(SIG_PREFIX)) return fail(`"${line.slice(0, 40)}" is not a signature line ("— <key name> <base64>").`);
    const rest = line.slice(SIG_PREFIX.length);
    const space = rest.indexOf(' ');
    const name = space < 0 ? '' : rest.slice(0, space);
    const blob = space < 0 ? null : decodeBase64(rest.slice(space + 1));
    if (!isValidKeyName(name) || blob === null || blob.length <= KEY_HASH_BYTES) return fail(`The signature line "${line.slice(0, 40)}" is malformed.`);
    signatures.push({ name, keyHash: blob.subarray(0, KEY_HASH_BYTES), signature: blob.subarray(KEY_HASH_BYTES) });
  }
  return ok({ body, signatures });
}
