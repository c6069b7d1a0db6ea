// The tables of the session registry and the evidence index: one row per session and one per
// sealed bundle, from every machine. Each statement is idempotent (see pg-schema.ts PARTS).

/** DDL of the session registry and the evidence index. */
export const REGISTRY_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS gh_sessions (
     machine_id text NOT NULL,
     host text NOT NULL,
     os_user text NOT NULL,
     project_key text NOT NULL,
     session_id text NOT NULL,
     agent text NOT NULL,
     worktree text NOT NULL,
     status text NOT NULL,
     started_at timestamptz,
     ended_at timestamptz,
     verdict text,
     verdict_summary text,
     evidence_id text,
     sandboxed boolean NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (machine_id, project_key, session_id)
   )`,
  `CREATE INDEX IF NOT EXISTS gh_sessions_started ON gh_sessions (started_at DESC)`,
  `CREATE TABLE IF NOT EXISTS gh_evidence_blobs (
     digest text PRIMARY KEY,
     data bytea NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS gh_evidence (
     id text PRIMARY KEY,
     machine_id text NOT NULL,
     host text NOT NULL,
     os_user text NOT NULL,
     project_key text NOT NULL,
     session_id text NOT NULL,
     kind text NOT NULL,
     place text NOT NULL,
     verdict text NOT NULL,
     statement_sha256 text NOT NULL,
     content_digest text,
     sealed_at timestamptz,
     envelope jsonb NOT NULL,
     blob_digests text[] NOT NULL,
     forwarded_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX IF NOT EXISTS gh_evidence_session ON gh_evidence (machine_id, project_key, session_id)`,
];
