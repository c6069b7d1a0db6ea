// ISO 8601 UTC timestamps, as `Date.prototype.toISOString` writes them, without calling it: V8's
// first toISOString in a process sets up ICU's time zone (it reads /etc/localtime and the zone
// data) though the text it writes is UTC. That is about 1 ms of every cold refusal and Stop,
// which each write timestamps into their audit events and evidence.

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/**
 * `at` as toISOString writes it (`2026-12-05T05:49:10.892Z`); throws RangeError for an invalid
 * date, as toISOString does.
 * @example isoTime(0) // '1970-01-01T00:00:00.000Z'
 */
export function isoTime(at: Date | number = Date.now()): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  const year = d.getUTCFullYear();
  // Before year 0 or after 9999 the format has a sign and six digits; an invalid date throws.
  if (!(year >= 0 && year <= 9999)) return d.toISOString();
  const ms = d.getUTCMilliseconds();
  return (
    `${String(year).padStart(4, '0')}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`
  );
}
