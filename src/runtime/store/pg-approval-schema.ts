// The approval queue's tables in the team store: one row per request a machine's relay
// forwarded, its one resolution (null until resolved), and what the waiting agent acted on.
// Every statement is idempotent; pg-schema.ts runs them with the other parts'.

/**
 * `gh_approvals`: `id` is the request's id in its machine's local queue. The resolution
 * (`decision`, `principal`, `reason`, `resolved_at`, `expired`) is written once, by whichever
 * resolver's conditional UPDATE finds it still null. `applied_*` is what the machine's queue
 * actually answered the waiting agent, reported back by its relay; `conflict` is true when
 * that differs from the resolution (see docs/teams.md "Approvals on PostgreSQL").
 */
export const APPROVAL_TABLES: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS gh_approvals (
     id text PRIMARY KEY,
     machine_id text NOT NULL,
     host text NOT NULL,
     os_user text NOT NULL,
     project_key text NOT NULL,
     session_id text NOT NULL,
     agent text NOT NULL,
     tool text NOT NULL,
     summary text NOT NULL,
     why text,
     detail jsonb,
     always_target jsonb,
     nonce text NOT NULL,
     created_at timestamptz NOT NULL,
     expires_at timestamptz NOT NULL,
     decision text,
     principal jsonb,
     reason text,
     resolved_at timestamptz,
     expired boolean NOT NULL DEFAULT false,
     resolved_by_machine text,
     applied_decision text,
     applied_principal jsonb,
     applied_reason text,
     applied_at timestamptz,
     conflict boolean NOT NULL DEFAULT false,
     CHECK ((decision IS NULL) = (principal IS NULL) AND (decision IS NULL) = (resolved_at IS NULL)),
     CHECK ((applied_decision IS NULL) = (applied_principal IS NULL))
   )`,
  `CREATE INDEX IF NOT EXISTS gh_approvals_open ON gh_approvals (expires_at) WHERE decision IS NULL`,
  `CREATE INDEX IF NOT EXISTS gh_approvals_machine ON gh_approvals (machine_id, project_key)`,
];
