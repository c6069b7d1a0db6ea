// `audit export --store`: writes the team log as a file-store audit folder (log.jsonl and
// checkpoints.jsonl), so the offline `gatehouse audit verify --dir` checks it with no database.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { canonicalJson } from '../../core/crypto/canonical-json.js';
import { fail, ok, type Result } from '../../core/result.js';
import { CHECKPOINT_FILE, LOG_FILE } from '../audit/log.js';
import type { PgStore } from './pg-connect.js';
import { checkpointRows, eventPages, inSnapshot, rowCount } from './pg-audit-rows.js';

/** Bytes buffered before a write: a few large writes instead of one per line. */
const WRITE_BLOCK_BYTES = 1 << 20;

/** Appends to one file in large blocks. */
class BlockFile {
  private readonly fd: number;
  private parts: string[] = [];
  private size = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'wx', 0o600);
  }
  line(text: string): void {
    this.parts.push(text, '\n');
    this.size += text.length + 1;
    if (this.size >= WRITE_BLOCK_BYTES) this.flush();
  }
  private flush(): void {
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    for (let off = 0; off < buf.length;) off += writeSync(this.fd, buf, off, buf.length - off);
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}

/**
 * Writes the team log in `store` to the new folder `outDir` as of one snapshot: first into a
 * temp folder beside it, then renamed into place, so `outDir` is either complete or absent.
 * @example await exportTeamAudit(store, 'team-audit-2025-06-01')
 */
export async function exportTeamAudit(store: PgStore, outDir: string): Promise<Result<{ events: number; checkpoints: number }>> {
  const target = resolve(outDir);
  if (existsSync(target)) return fail(`${outDir} already exists; export writes a new folder: name one that does not exist yet.`);
  if (!existsSync(dirname(target))) return fail(`${dirname(outDir)} does not exist; create it first, or export somewhere else.`);
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  mkdirSync(tmp, { mode: 0o700 });
  try {
    const counts = await inSnapshot(store, async (c) => {
      const cps = await checkpointRows(c);
      const log = new BlockFile(join(tmp, LOG_FILE));
      let events = 0;
      try {
        for await (const rows of eventPages<[string, string | null]>(c, 'seq, line')) {
          // A NULL line (its NOT NULL dropped by hand) is written empty, for the offline verify to report.
          for (const row of rows) log.line(row[1] ?? '');
          events += rows.length;
        }
      } finally {
        log.close();
      }
      // A row no scan in seq order reaches would be missing from the folder, which would then verify intact.
      const rows = await rowCount(c);
      if (rows !== events) {
        return fail(
          `The team log table holds ${rows} rows but only ${events} are in seq order: rows with a NULL or repeated seq were inserted outside the append, and an export without them would verify intact. Nothing was written. Run \`gatehouse audit verify --store …\` to see the report.`,
        );
      }
      const cpFile = new BlockFile(join(tmp, CHECKPOINT_FILE));
      for (const cp of cps) cpFile.line(canonicalJson(cp));
      cpFile.close();
      return ok({ events, checkpoints: cps.length });
    });
    if (!counts.ok) return counts;
    renameSync(tmp, target);
    return counts;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
