import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/core/crypto/canonical-json.js';
import { signEnvelope } from '../../../src/core/crypto/dsse.js';
import type { Policy } from '../../../src/core/policy.js';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import type { Result } from '../../../src/core/result.js';
import { getBlob, readBlob } from '../../../src/runtime/evidence/blob-read.js';
import {
  exportEvidence,
  listEvidence,
  loadEvidence,
  PAYLOAD_TYPE,
  sealEvidence,
  verifyEvidence,
  verifyEvidenceFile,
  type EvidenceBundle,
  type EvidenceStatement,
  type SealInput,
} from '../../../src/runtime/evidence/index.js';
import { loadOrCreateKey, publicKeyFromPem, type SigningKey } from '../../../src/runtime/keys.js';
import type { ProducerResult } from '../../../src/runtime/producers.js';
import { testPolicy } from '../../support/policy.js';

let root: string;
let state: string;
let key: SigningKey;
let audit: AuditLog;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatehouse-evidence-'));
  state = join(root, 'state');
  key = loadOrCreateKey(state);
  audit = new AuditLog(join(state, 'audit'));
  // A few earlier events, so inclusion proofs have sibling hashes to tamper with.
  for (let i = 0; i < 3; i++) audit.append({ type: 'session_started', actor: 'os-user:alice', session_id: 's1', data: { agent: 'claude-code', worktree: `/src/app${i}` } });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const policy: Policy = testPolicy();

function producer(output: string, status: ProducerResult['status'] = 'failed'): ProducerResult {
  return { name: 'test', required: true, status, exit_code: status === 'passed' ? 0 : 1, signal: null, duration_ms: 1234, output, output_bytes: Buffer.byteLength(output), truncated: false };
}

function completion(over: Partial<SealInput> = {}): SealInput {
  return {
    where: 'in_session',
    kind: 'completion_verdict',
    verdict: 'fail',
    decided_by: 'evidence_producers',
    reason: 'tests failed',
    verifiers: [
      { name: 'evidence_producers', outcome: 'block', reason: 'tests failed' },
      { name: 'scope', outcome: 'skipped' },
    ],
    producers: [producer('FAIL src/a.test.ts\n1 failed\n')],
    scope: { changed: [{ path: 'src/a.ts', change: 'modified', undo: 'checkout' }], outside: [] },
    policy,
    agent_claim: null,
    ...over,
  };
}

const refusedWrite: SealInput = {
  where: 'in_session',
  kind: 'write_refused',
  verdict: 'refused',
  decided_by: 'write_gate',
  reason: 'outside the allowed paths',
  verifiers: [],
  producers: [],
  scope: null,
  policy,
  write: { tool: 'Write', targets: ['/src/app/README.md'], rule: 'allowlist' },
  agent_claim: null,
};

const storeBlobs = (digest: string): Result<Buffer> => readBlob(state, digest);

function readBundle(file: string): EvidenceBundle {
  return JSON.parse(readFileSync(file, 'utf8')) as EvidenceBundle;
}

function statementOf(bundle: EvidenceBundle): EvidenceStatement {
  return JSON.parse(Buffer.from(bundle.envelope.payload, 'base64').toString('utf8')) as EvidenceStatement;
}

/** What an attacker holding the signing key could produce: an edited statement, validly signed. */
function resigned(bundle: EvidenceBundle, edit: (st: EvidenceStatement) => void): EvidenceBundle {
  const st = statementOf(bundle);
  edit(st);
  return { envelope: signEnvelope(PAYLOAD_TYPE, Buffer.from(canonicalJson(st), 'utf8'), key) };
}

function problemsOf(result: ReturnType<typeof verifyEvidence>): string[] {
  return result.ok ? [] : result.problems;
}

/** Every key path of a JSON value, arrays collapsed to `[]`, so two schemas compare by shape. */
function shape(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return [`${prefix}[]`, ...value.flatMap((v) => shape(v, `${prefix}[]`))];
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => [`${prefix}.${k}`, ...shape(v, `${prefix}.${k}`)]);
  return [];
}

describe('sealEvidence + verifyEvidence', () => {
  it('seals a completion verdict that verifies offline under the project key', () => {
    const { id, file } = sealEvidence(state, completion(), key, audit);
    expect(file).toBe(join(state, 'evidence', 'bundles', `${id}.json`));
    expect(id).toMatch(/^ev-\d{8}T\d{6}Z-[0-9a-f]{16}$/);
    const bundle = readBundle(file);
    expect(verifyEvidence(bundle, key.publicKey, storeBlobs)).toEqual({ ok: true, sandboxed: false, sandbox: null });
    expect(verifyEvidenceFile(file, key.publicKey)).toEqual({ ok: true, sandboxed: false, sandbox: null });

    const st = statementOf(bundle);
    expect(st._type).toBe('https://in-toto.io/Statement/v1');
    expect(st.subject.map((s) => s.name)).toEqual(['producer/test/output', 'scope/changes.json', 'policy.json']);
    expect(st.predicate).toMatchObject({
      receipt_id: id,
      session_id: 's1',
      agent: 'claude-code',
      sandboxed: false,
      kind: 'completion_verdict',
      where: 'in_session',
      verdict: 'fail',
      write: null,
      agent_claim: null,
    });
    expect(st.predicate.producers[0]).toMatchObject({ name: 'test', kind: 'check', status: 'failed', exit_code: 1, output_digest: st.subject[0]?.digest.sha256 });
    expect(getBlob(state, st.subject[0]?.digest.sha256 as string)?.toString()).toBe('FAIL src/a.test.ts\n1 failed\n');
    expect(JSON.parse(st.predicate.anchor?.event_line as string)).toMatchObject({
      type: 'evidence_sealed',
      actor: 'system:evidence',
      data: { evidence_id: id, kind: 'completion_verdict', where: 'in_session', verdict: 'fail' },
    });
  });

  it('seals a refused write that verifies, with the write recorded and no scope subject', () => {
    const { file } = sealEvidence(state, refusedWrite, key, audit);
    expect(verifyEvidenceFile(file, key.publicKey)).toEqual({ ok: true, sandboxed: false, sandbox: null });
    const st = statementOf(readBundle(file));
    expect(st.predicate).toMatchObject({ kind: 'write_refused', verdict: 'refused', write: { tool: 'Write', targets: ['/src/app/README.md'], rule: 'allowlist' }, producers: [] });
    expect(st.subject.map((s) => s.name)).toEqual(['policy.json']);
  });

  it('gives in-session and end-of-session bundles one schema; only `where` differs', () => {
    const a = statementOf(readBundle(sealEvidence(state, completion({ where: 'in_session' }), key, audit).file));
    const b = statementOf(readBundle(sealEvidence(state, completion({ where: 'end_of_session' }), key, audit).file));
    expect(shape(b).sort()).toEqual(shape(a).sort());
    expect([a.predicate.where, b.predicate.where]).toEqual(['in_session', 'end_of_session']);
  });

  it('records the agent claim beside the verdict', () => {
    const disagrees = statementOf(readBundle(sealEvidence(state, completion({ agent_claim: 'PASS', verdict: 'fail' }), key, audit).file));
    expect(disagrees.predicate.agent_claim).toEqual({ claim: 'PASS', agrees_with_verdict: false });
    const agrees = statementOf(readBundle(sealEvidence(state, completion({ agent_claim: 'PASS', verdict: 'pass', producers: [producer('ok\n', 'passed')] }), key, audit).file));
    expect(agrees.predicate.agent_claim).toEqual({ claim: 'PASS', agrees_with_verdict: true });
  });

  it('gives two seals in the same millisecond two distinct bundles that both verify', () => {
    const now = new Date('2025-06-01T12:00:00.000Z');
    const a = sealEvidence(state, completion({ now }), key, audit);
    const b = sealEvidence(state, completion({ now }), key, audit);
    expect(a.id).not.toBe(b.id);
    expect(a.id.startsWith('ev-20250601T120000Z-')).toBe(true);
    expect(verifyEvidenceFile(a.file, key.publicKey)).toEqual({ ok: true, sandboxed: false, sandbox: null });
    expect(verifyEvidenceFile(b.file, key.publicKey)).toEqual({ ok: true, sandboxed: false, sandbox: null });
    expect(
      listEvidence(state)
        .map((e) => e.id)
        .sort(),
    ).toEqual([a.id, b.id].sort());
  });

  it('lists bundles newest last and loads one by id', () => {
    const first = sealEvidence(state, completion({ now: new Date('2025-01-01T00:00:01Z') }), key, audit);
    const second = sealEvidence(state, refusedWrite, key, audit);
    expect(listEvidence(state).map((e) => [e.id, e.kind, e.verdict])).toEqual([
      [first.id, 'completion_verdict', 'fail'],
      [second.id, 'write_refused', 'refused'],
    ]);
    const loaded = loadEvidence(state, first.id);
    expect(loaded.ok && loaded.value.statement.predicate.receipt_id).toBe(first.id);
    expect(loadEvidence(state, 'ev-20250101T000000Z-0000000000000000').ok).toBe(false);
    expect(loadEvidence(state, '../keys/ed25519.key').ok).toBe(false);
  });
});

describe('exported evidence', () => {
  it('verifies from a copy in another folder after the state folder is gone', () => {
    const { id } = sealEvidence(state, completion(), key, audit);
    const out = join(root, 'receipt.json');
    expect(exportEvidence(state, id, out)).toMatchObject({ ok: true, value: { blobs: 3 } });
    const elsewhere = mkdtempSync(join(tmpdir(), 'gatehouse-evidence-moved-'));
    try {
      copyFileSync(out, join(elsewhere, 'receipt.json'));
      rmSync(state, { recursive: true, force: true });
      rmSync(out);
      expect(existsSync(state)).toBe(false);
      // The operator's copy of the public key, as text: nothing from the state folder.
      expect(verifyEvidenceFile(join(elsewhere, 'receipt.json'), publicKeyFromPem(key.publicKeyPem))).toEqual({ ok: true, sandboxed: false, sandbox: null });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses to export an unknown receipt or into a missing folder, as values', () => {
    const { id } = sealEvidence(state, completion(), key, audit);
    expect(exportEvidence(state, 'ev-20250101T000000Z-0000000000000000', join(root, 'x.json')).ok).toBe(false);
    expect(exportEvidence(state, id, join(root, 'no', 'such', 'dir', 'x.json')).ok).toBe(false);
  });

  it('fails on a tampered blob inside the export file', () => {
    const { id } = sealEvidence(state, completion(), key, audit);
    const out = join(root, 'receipt.json');
    exportEvidence(state, id, out);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { blobs: Record<string, string> };
    const digest = Object.keys(doc.blobs)[0] as string;
    doc.blobs[digest] = Buffer.from('PASS, trust me\n').toString('base64');
    writeFileSync(out, JSON.stringify(doc));
    expect(problemsOf(verifyEvidenceFile(out, key.publicKey)).join('\n')).toMatch(/^subject producer\/test\/output: blob content does not match/m);
  });

  it('refuses to export a blob planted as a symbolic link to another file, and never embeds that file', () => {
    const { id, file } = sealEvidence(state, completion(), key, audit);
    const digest = statementOf(readBundle(file)).subject[0]?.digest.sha256 as string;
    const secret = join(root, 'id_ed25519');
    writeFileSync(secret, 'PRIVATE KEY MATERIAL\n');
    const blob = join(state, 'evidence', 'blobs', 'sha256', digest);
    rmSync(blob);
    symlinkSync(secret, blob);
    const out = join(root, 'receipt.json');
    const r = exportEvidence(state, id, out);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(new RegExp(`^Blob ${digest} of subject producer/test/output is a symbolic link.*evidence store was altered.*gatehouse evidence verify`));
    expect(existsSync(out)).toBe(false);
  });

  it('refuses to export a blob whose bytes do not hash to its name', () => {
    const { id, file } = sealEvidence(state, completion(), key, audit);
    const digest = statementOf(readBundle(file)).subject[0]?.digest.sha256 as string;
    writeFileSync(join(state, 'evidence', 'blobs', 'sha256', digest), 'PRIVATE KEY MATERIAL\n');
    const out = join(root, 'receipt.json');
    const r = exportEvidence(state, id, out);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(new RegExp(`^Blob ${digest} of subject producer/test/output does not hash to its name`));
    expect(existsSync(out)).toBe(false);
  });
});

describe('verification failures name the problem', () => {
  it('fails under a key other than the trusted one', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const stranger = loadOrCreateKey(join(root, 'other'));
    const problems = problemsOf(verifyEvidenceFile(file, stranger.publicKey));
    expect(problems.some((p) => p.startsWith('signature:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('anchor checkpoint:'))).toBe(true);
  });

  it('fails on a tampered blob in the store', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const digest = statementOf(readBundle(file)).subject[0]?.digest.sha256 as string;
    writeFileSync(join(state, 'evidence', 'blobs', 'sha256', digest), 'all tests passed\n');
    expect(problemsOf(verifyEvidenceFile(file, key.publicKey))).toEqual([`subject producer/test/output: blob content does not match its digest ${digest}`]);
  });

  it('fails on a missing blob', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const digest = statementOf(readBundle(file)).subject[1]?.digest.sha256 as string;
    rmSync(join(state, 'evidence', 'blobs', 'sha256', digest));
    expect(problemsOf(verifyEvidenceFile(file, key.publicKey))).toEqual([`subject scope/changes.json: blob ${digest} is missing`]);
  });

  it('fails on a blob planted as a symbolic link (even to a FIFO) without reading through it', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const digest = statementOf(readBundle(file)).subject[0]?.digest.sha256 as string;
    const fifo = join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const blob = join(state, 'evidence', 'blobs', 'sha256', digest);
    rmSync(blob);
    symlinkSync(fifo, blob);
    expect(problemsOf(verifyEvidenceFile(file, key.publicKey))).toEqual([`subject producer/test/output: blob ${digest} is a symbolic link, not a stored blob (${blob})`]);
    rmSync(blob);
    execFileSync('mkfifo', [blob]);
    expect(problemsOf(verifyEvidenceFile(file, key.publicKey))).toEqual([`subject producer/test/output: blob ${digest} is not a regular file (${blob})`]);
  });

  it('fails on a statement edited without the key', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const bundle = readBundle(file);
    const st = statementOf(bundle);
    st.predicate.verdict = 'pass';
    bundle.envelope.payload = Buffer.from(canonicalJson(st)).toString('base64');
    const problems = problemsOf(verifyEvidence(bundle, key.publicKey, storeBlobs));
    expect(problems.some((p) => p.startsWith('signature:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('anchor content:'))).toBe(true);
  });

  it('fails on a statement edited and re-signed: the audit event holds the original digest', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const bundle = resigned(readBundle(file), (st) => {
      st.predicate.reason = 'nothing to see';
    });
    expect(problemsOf(verifyEvidence(bundle, key.publicKey, storeBlobs))).toEqual(['anchor content: the statement does not match the content_digest its audit event recorded']);
  });

  it('fails when a producer output digest is not among the subjects', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const bundle = resigned(readBundle(file), (st) => {
      (st.predicate.producers[0] as { output_digest: string }).output_digest = '0'.repeat(64);
    });
    const problems = problemsOf(verifyEvidence(bundle, key.publicKey, storeBlobs));
    expect(problems).toContain('producer test: output_digest is not the digest of subject producer/test/output');
  });

  it('fails when a hash of the inclusion proof is flipped', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const bundle = resigned(readBundle(file), (st) => {
      const proof = st.predicate.anchor?.inclusion_proof as string[];
      expect(proof.length).toBeGreaterThan(0);
      proof[0] = `${(proof[0] as string)[0] === '0' ? '1' : '0'}${(proof[0] as string).slice(1)}`;
    });
    const problems = problemsOf(verifyEvidence(bundle, key.publicKey, storeBlobs));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^anchor inclusion:/);
  });

  it('fails when the anchor claims a different root', () => {
    const { file } = sealEvidence(state, completion(), key, audit);
    const bundle = resigned(readBundle(file), (st) => {
      (st.predicate.anchor as { checkpoint: { root: string } }).checkpoint.root = 'ab'.repeat(32);
    });
    const problems = problemsOf(verifyEvidence(bundle, key.publicKey, storeBlobs));
    expect(problems.some((p) => p.startsWith('anchor inclusion:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('anchor checkpoint:'))).toBe(true);
  });

  it('fails when one receipt carries the anchor of another', () => {
    const a = sealEvidence(state, completion(), key, audit);
    const b = sealEvidence(state, completion({ verdict: 'pass', producers: [producer('ok\n', 'passed')] }), key, audit);
    const anchorOfA = statementOf(readBundle(a.file)).predicate.anchor;
    const bundle = resigned(readBundle(b.file), (st) => {
      st.predicate.anchor = anchorOfA;
    });
    const problems = problemsOf(verifyEvidence(bundle, key.publicKey, storeBlobs));
    expect(problems).toContain(`anchor event: records evidence ${a.id}, not this receipt ${b.id}`);
    expect(problems.some((p) => p.startsWith('anchor content:'))).toBe(true);
  });

  it('fails when bundle files are swapped between receipts', () => {
    const a = sealEvidence(state, completion(), key, audit);
    const b = sealEvidence(state, completion({ verdict: 'pass', producers: [producer('ok\n', 'passed')] }), key, audit);
    copyFileSync(a.file, b.file);
    expect(problemsOf(verifyEvidenceFile(b.file, key.publicKey))).toEqual([`bundle file: named ${b.id} but holds receipt ${a.id}; the bundle was moved or swapped`]);
    expect(loadEvidence(state, b.id).ok).toBe(false);
  });

  it('rejects files that are not evidence without throwing', () => {
    const junk = join(root, 'junk.json');
    writeFileSync(junk, '{"hello": 1}');
    expect(verifyEvidenceFile(junk, key.publicKey).ok).toBe(false);
    writeFileSync(junk, 'not json');
    expect(verifyEvidenceFile(junk, key.publicKey).ok).toBe(false);
    expect(verifyEvidenceFile(join(root, 'absent.json'), key.publicKey).ok).toBe(false);
    expect(verifyEvidence({ envelope: { payload: 'e30=', payloadType: PAYLOAD_TYPE, signatures: [] } }, key.publicKey, storeBlobs).ok).toBe(false);
  });
});

describe('seal cost', () => {
  /** Generous bound for a noisy two-core CI machine; the measured mean is printed. */
  const MAX_MEAN_SEAL_MS = 50;
  const RUNS = 30;

  it(`seals in under ${MAX_MEAN_SEAL_MS} ms on average`, () => {
    sealEvidence(state, completion(), key, audit); // warm up module code paths
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) sealEvidence(state, completion({ producers: [producer(`run ${i}\n`)] }), key, audit);
    const mean = (performance.now() - started) / RUNS;
    console.log(`evidence seal: ${mean.toFixed(2)} ms mean over ${RUNS} seals`);
    expect(mean).toBeLessThan(MAX_MEAN_SEAL_MS);
  });
});
