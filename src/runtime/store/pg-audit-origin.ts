// The local event a team log event copies, recomputed from the team line alone: the same
// canonical line with the origin's seq and prev_hash in place of the team's, and no origin.
import { sha256Hex } from '../../core/crypto/sha256.js';
import type { EventOrigin } from '../audit/record.js';

const HASH_FIELD = ',"hash":"';
const SESSION_FIELD = ',"session_id":';

/**
 * The `hash` of the local event a canonical team line was forwarded from. A canonical line is
 * `{"actor":…,"data":…,"hash":…,"origin":…,"prev_hash":…,"seq":…,"session_id":…,"time":…,"type":…}`;
 * the local event is the part before `hash`, its own prev_hash and seq, and the part from
 * `session_id` on (the last of each marker is the top-level one: nothing after it is free text).
 * Only for a line that passed the verify's canonical check.
 */
export function originLineHash(line: string, origin: EventOrigin): string {
  const head = line.slice(0, line.lastIndexOf(HASH_FIELD));
  const tail = line.slice(line.lastIndexOf(SESSION_FIELD));
  const local = `${head},"prev_hash":"${origin.prev_hash}","seq":${origin.seq}${tail}`;
  return sha256Hex(local);
}
