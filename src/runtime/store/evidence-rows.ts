// Sealed evidence in the team store: a local bundle becomes a row (who, what, when, the DSSE
// envelope) plus its blobs, and a row fetched back becomes an export file `evidence verify` checks.
import type { PoolClient, Pool } from 'pg';
import { envelopePayload, type DsseEnvelope } from '../../core/crypto/dsse.js';
import { fail, ok, type Result } from '../../core/result.js';
import { readBlob } from '../evidence/blob-read.js';
import { sha256Hex } from '../../core/crypto/sha256.js';
import { contentDigest } from '../evidence/statement.js';
import { EXPORT_FORMAT, loadEvidence } from '../evidence/store.js';
import type { Machine } from './machine.js';
import { isoTime } from '../../core/iso-time.js';

/** A local bundle ready to be written: its row and the blobs whose bytes match their digests. */
export interface EvidenceItem {
  id: string;
  session_id: string;
  kind: string;
  place: string;
  verdict: string;
  statement_sha256: string;
  content_digest: string | null;
  sealed_at: string | null;
  envelope: DsseEnvelope;
  blobs: Map<string, Buffer>;
  /** Subjects whose blob is missing or altered here: the row still goes, and verifying the fetched bundle names them. */
  problems: string[];
}

/**
 * Reads bundle `id` of a project for the store; a failure when it is not a readable bundle.
 * @example const item = evidenceItem(state, 'ev-20250101T000000Z-0123456789abcdef')
 */
export function evidenceItem(projectState: string, id: string): Result<EvidenceItem> {
  const loaded = loadEvidence(projectState, id);
  if (!loaded.ok) return loaded;
  const { statement, bundle } = loaded.value;
  const payload = envelopePayload(bundle.envelope);
  if (payload === null) return fail(`${loaded.value.file} has no DSSE payload`);
  const blobs = new Map<string, Buffer>();
  const problems: string[] = [];
  for (const s of statement.subject) {
    const digest = s.digest.sha256;
    const data = readBlob(projectState, digest);
    if (data.ok && sha256Hex(data.value) === digest) blobs.set(digest, data.value);
    else problems.push(`subject ${s.name}: blob ${digest} ${data.ok ? 'does not match its digest' : data.reason}`);
  }
  let digest: string | null;
  try {
    digest = contentDigest(statement);
  } catch {
    digest = null;
  }
  const p = statement.predicate;
  const ms = Date.parse(p.sealed_at);
  return ok({
    id,
    session_id: p.session_id,
    kind: p.kind,
    place: p.where,
    verdict: p.verdict,
    statement_sha256: sha256Hex(payload),
    content_digest: digest,
    sealed_at: Number.isFinite(ms) ? isoTime(ms) : null,
    envelope: bundle.envelope,
    blobs,
    problems,
  });
}

/** Writes one bundle and its blobs in one transaction (blobs first), so a row is never there without them. Idempotent. */
export async function putEvidence(c: PoolClient, item: EvidenceItem, machine: Machine, projectKey: string): Promise<void> {
  for (const [digest, data] of item.blobs) await c.query('INSERT INTO gh_evidence_blobs (digest, data) VALUES ($1, $2) ON CONFLICT (digest) DO NOTHING', [digest, data]);
  await c.query(
    `INSERT INTO gh_evidence (id, machine_id, host, os_user, project_key, session_id, kind, place, verdict, statement_sha256, content_digest, sealed_at, envelope, blob_digests)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (id) DO NOTHING`,
    [
      item.id,
      machine.id,
      machine.host,
      machine.user,
      projectKey,
      item.session_id,
      item.kind,
      item.place,
      item.verdict,
      item.statement_sha256,
      item.content_digest,
      item.sealed_at,
      JSON.stringify(item.envelope),
      [...item.blobs.keys()],
    ],
  );
}

/** An export document (`gatehouse-evidence-export/v1`) as `evidence verify FILE` reads it. */
export interface FetchedEvidence {
  format: typeof EXPORT_FORMAT;
  envelope: DsseEnvelope;
  blobs: Record<string, string>;
  /** Where it came from, for a person: not part of what is verified. */
  origin: { machine_id: string; host: string; os_user: string; project_key: string; session_id: string };
}

/**
 * Bundle `id` from the store, with its blobs, as an export document; a failure when the store has no such bundle.
 * The signature is not checked here: `gatehouse evidence verify FILE --key PUB.pem` does that against a key you trust.
 * @example const doc = await fetchEvidence(store.pool, id); if (doc.ok) writeFileAtomic(out, JSON.stringify(doc.value))
 */
export async function fetchEvidence(pool: Pool, id: string): Promise<Result<FetchedEvidence>> {
  const row = await pool.query<{ envelope: DsseEnvelope; blob_digests: string[]; machine_id: string; host: string; os_user: string; project_key: string; session_id: string }>(
    'SELECT envelope, blob_digests, machine_id, host, os_user, project_key, session_id FROM gh_evidence WHERE id = $1',
    [id],
  );
  const r = row.rows[0];
  if (r === undefined)
    return fail(`the team store has no evidence bundle ${id}; check the id (the dashboard of \`gatehouse serve --store\` lists each session's), or wait until its machine is linked again.`);
  const blobs: Record<string, string> = {};
  const got = await pool.query<{ digest: string; data: Buffer }>('SELECT digest, data FROM gh_evidence_blobs WHERE digest = ANY($1)', [r.blob_digests]);
  for (const b of got.rows) blobs[b.digest] = b.data.toString('base64');
  return ok({
    format: EXPORT_FORMAT,
    envelope: r.envelope,
    blobs,
    origin: { machine_id: r.machine_id, host: r.host, os_user: r.os_user, project_key: r.project_key, session_id: r.session_id },
  });
}
