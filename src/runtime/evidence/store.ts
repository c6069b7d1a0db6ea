// Reading sealed evidence back: load and list a project's bundles, export one bundle with
// its blobs as a single self-contained file, and verify a bundle file or an export file.
import type { KeyObject } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { decodeBase64, envelopePayload, type DsseEnvelope } from '../../core/crypto/dsse.js';
import { fail, ok, type Result } from '../../core/result.js';
import { writeFileAtomic } from '../fs-atomic.js';
import { isRefusedFile, readRegularText } from '../small-file.js';
import { readBlob } from './blob-read.js';
import { sha256Hex } from '../../core/crypto/sha256.js';
import { blobDir, SHA256_HEX_RE } from './blobs.js';
import { bundleDir, EVIDENCE_ID_RE, type EvidenceBundle } from './seal.js';
import type { EvidenceKind, EvidenceStatement, EvidenceVerdict, EvidenceWhere } from './statement.js';
import { readStatement, verifyEvidence, type BlobSource, type EvidenceCheck } from './verify.js';

/** Format tag of an export file (also what a bundle fetched from the team store is written as). */
export const EXPORT_FORMAT = 'gatehouse-evidence-export/v1';

/** One bundle and every blob its subjects name, in one JSON file. */
interface EvidenceExport {
  format: typeof EXPORT_FORMAT;
  envelope: DsseEnvelope;
  /** Blob bytes, base64, by hex SHA-256. */
  blobs: Record<string, string>;
}

/** A loaded bundle (signature not checked: use {@link verifyEvidenceFile} for that). */
export interface LoadedEvidence {
  id: string;
  file: string;
  bundle: EvidenceBundle;
  statement: EvidenceStatement;
}

/** One line of {@link listEvidence}. */
export interface EvidenceSummary {
  id: string;
  session_id: string;
  kind: EvidenceKind;
  where: EvidenceWhere;
  verdict: EvidenceVerdict;
  sealed_at: string;
}

function readJson(file: string): Result<unknown> {
  let text: string;
  try {
    text = readRegularText(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') return fail(`Cannot read ${file} (${code}); check the path.`);
    // A folder, a FIFO or a device in its place, or a file past the cap: the message names it.
    if (isRefusedFile(err)) return fail(`${(err as Error).message}; check the path.`);
    throw err;
  }
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    return fail(`${file} is not JSON; it is not an evidence bundle or export.`);
  }
}

/** The receipt id a bundle's payload claims, without checking anything else. */
function claimedId(envelope: unknown): string | null {
  const payload = envelopePayload(envelope);
  if (payload === null) return null;
  try {
    const id = (JSON.parse(payload.toString('utf8')) as { predicate?: { receipt_id?: unknown } }).predicate?.receipt_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/**
 * Loads bundle `id` of a project; a failure when it is absent, unreadable or not the bundle it is named after.
 * @example const r = loadEvidence(state, 'ev-20250101T000000Z-0123456789abcdef'); if (r.ok) show(r.value.statement)
 */
export function loadEvidence(projectState: string, id: string): Result<LoadedEvidence> {
  if (!EVIDENCE_ID_RE.test(id)) return fail(`"${id}" is not an evidence id (ev-<yyyymmddThhmmssZ>-<16 hex>); list them with \`gatehouse evidence list\`.`);
  const file = join(bundleDir(projectState), `${id}.json`);
  if (!existsSync(file)) return fail(`no evidence bundle ${id} in ${projectState}; list that project's bundles with \`gatehouse evidence list\`.`);
  const json = readJson(file);
  if (!json.ok) return json;
  const bundle = json.value as EvidenceBundle;
  const problems: string[] = [];
  const statement = readStatement((json.value as { envelope?: unknown } | null)?.envelope, problems);
  if (statement === null) return fail(`${file} is not a valid evidence bundle: ${problems.join('; ')}.`);
  if (statement.predicate.receipt_id !== id) return fail(`${file} holds receipt ${statement.predicate.receipt_id}, not ${id}; the bundle was moved or swapped.`);
  return ok({ id, file, bundle, statement });
}

/**
 * Every readable bundle of a project, oldest first (newest last); unreadable files are skipped.
 * @example for (const e of listEvidence(state)) console.log(e.id, e.verdict)
 */
export function listEvidence(projectState: string): EvidenceSummary[] {
  let names: string[];
  try {
    names = readdirSync(bundleDir(projectState));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: EvidenceSummary[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const loaded = loadEvidence(projectState, name.slice(0, -'.json'.length));
    if (!loaded.ok) continue;
    const p = loaded.value.statement.predicate;
    out.push({ id: p.receipt_id, session_id: p.session_id, kind: p.kind, where: p.where, verdict: p.verdict, sealed_at: p.sealed_at });
  }
  return out.sort((a, b) => (a.sealed_at < b.sealed_at ? -1 : a.sealed_at > b.sealed_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Writes bundle `id` and all its blobs to `outFile` as one self-contained JSON file.
 * @example exportEvidence(state, id, '/tmp/receipt.json')
 */
export function exportEvidence(projectState: string, id: string, outFile: string): Result<{ file: string; blobs: number }> {
  const loaded = loadEvidence(projectState, id);
  if (!loaded.ok) return loaded;
  const blobs: Record<string, string> = {};
  for (const s of loaded.value.statement.subject) {
    const digest = s.digest.sha256;
    const data = readBlob(projectState, digest);
    if (!data.ok && data.reason === 'is missing') return fail(`Blob ${digest} of subject ${s.name} is missing from ${projectState}; this bundle cannot be exported whole.`);
    if (!data.ok || sha256Hex(data.value) !== digest) {
      const what = data.ok ? `does not hash to its name (${join(blobDir(projectState), digest)})` : data.reason;
      return fail(
        `Blob ${digest} of subject ${s.name} ${what}: the evidence store was altered after the bundle was sealed, so ${id} is not exported. ` +
          'Do not trust that file; `gatehouse evidence verify` on the bundle lists every blob that fails. Remove the file and reseal from a new session if you need this evidence.',
      );
    }
    blobs[digest] = data.value.toString('base64');
  }
  const doc: EvidenceExport = { format: EXPORT_FORMAT, envelope: loaded.value.bundle.envelope, blobs };
  try {
    writeFileAtomic(outFile, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR' || code === 'EISDIR') return fail(`Cannot write ${outFile} (${code}); pick a file in an existing, writable folder.`);
    throw err;
  }
  return ok({ file: outFile, blobs: Object.keys(blobs).length });
}

/** Blobs carried by an export file; a value that is not base64 reads as missing. */
function exportBlobs(doc: Record<string, unknown>): BlobSource {
  const blobs = typeof doc.blobs === 'object' && doc.blobs !== null ? (doc.blobs as Record<string, unknown>) : {};
  return (digest) => {
    const data = SHA256_HEX_RE.test(digest) && Object.hasOwn(blobs, digest) ? decodeBase64(blobs[digest]) : null;
    return data === null ? fail('is missing') : ok(data);
  };
}

/**
 * Verifies an export file (blobs from the file) or a bundle file inside a project state
 * folder (`<state>/evidence/bundles/<id>.json`, blobs from the store) against `trustedPublicKey`.
 * @example const r = verifyEvidenceFile('receipt.json', publicKeyFromPem(pem)); if (!r.ok) console.error(r.problems)
 */
export function verifyEvidenceFile(path: string, trustedPublicKey: KeyObject): EvidenceCheck {
  const json = readJson(path);
  if (!json.ok) return { ok: false, problems: [`file: ${json.reason}`] };
  const doc = json.value;
  if (typeof doc !== 'object' || doc === null || !('envelope' in doc)) return { ok: false, problems: ['file: neither an evidence bundle nor an export (no envelope)'] };
  const record = doc as Record<string, unknown>;
  if (record.format === EXPORT_FORMAT) return verifyEvidence(doc, trustedPublicKey, exportBlobs(record));
  if (record.format !== undefined) return { ok: false, problems: [`file: unknown format ${String(record.format)}`] };

  const projectState = resolve(dirname(path), '..', '..');
  const check = verifyEvidence(doc, trustedPublicKey, (digest) => readBlob(projectState, digest));
  const id = claimedId(record.envelope);
  const expected = basename(path, '.json');
  if (id === expected) return check;
  const problem = `bundle file: named ${expected} but holds receipt ${id ?? '(none)'}; the bundle was moved or swapped`;
  return { ok: false, problems: [...(check.ok ? [] : check.problems), problem] };
}
