// The team audit log's tables: one row per event (its sealed line and where it came from), a
// single-row head that every append locks, the signed checkpoints, and forwarding halts.
import { GENESIS_HASH } from '../audit/record.js';

/**
 * Statements of the team audit log, each safe to run again. `seq` is the event's position and
 * Merkle leaf index; `line` is its canonical JSON exactly as a file-store log would hold it.
 * The UNIQUE origin key is what makes a retried forward a no-op instead of a duplicate.
 */
export const AUDIT_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS gh_audit_events (
     seq bigint PRIMARY KEY,
     line text NOT NULL,
     hash text NOT NULL,
     machine_id text NOT NULL,
     host text NOT NULL,
     project_key text NOT NULL,
     origin_seq bigint NOT NULL,
     origin_hash text NOT NULL,
     UNIQUE (machine_id, project_key, origin_seq)
   )`,
  // frontier: the right edge of the Merkle tree, one 32-byte subtree hash per set bit of size,
  // leftmost first; with it an append computes the new root without reading any row.
  `CREATE TABLE IF NOT EXISTS gh_audit_head (
     id smallint PRIMARY KEY CHECK (id = 1),
     log_id text NOT NULL,
     size bigint NOT NULL,
     last_hash text NOT NULL,
     frontier bytea NOT NULL,
     checkpoint_size bigint NOT NULL,
     checkpoint_at timestamptz
   )`,
  `INSERT INTO gh_audit_head (id, log_id, size, last_hash, frontier, checkpoint_size, checkpoint_at)
   VALUES (1, 'team-' || substr(md5(random()::text || clock_timestamp()::text), 1, 16), 0, '${GENESIS_HASH}', '\\x'::bytea, 0, NULL)
   ON CONFLICT (id) DO NOTHING`,
  `CREATE TABLE IF NOT EXISTS gh_audit_checkpoints (
     id bigserial PRIMARY KEY,
     tree_size bigint NOT NULL,
     root text NOT NULL,
     note text NOT NULL,
     key_id text NOT NULL,
     machine_id text NOT NULL,
     time text NOT NULL
   )`,
  // A machine whose local log failed its own check stops forwarding there and says so here.
  `CREATE TABLE IF NOT EXISTS gh_audit_halts (
     machine_id text NOT NULL,
     project_key text NOT NULL,
     host text NOT NULL,
     origin_seq bigint NOT NULL,
     reason text NOT NULL,
     time text NOT NULL,
     PRIMARY KEY (machine_id, project_key)
   )`,
];
