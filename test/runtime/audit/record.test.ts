// The verify's per-line checks, held to their slow and plain definitions: a line is canonical
// exactly when it is the canonical JSON of what it parses to, and its hash is the SHA-256 of
// that JSON without its hash member.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/core/crypto/canonical-json.js';
import { inspectEvent, isCanonicalEventLine, recomputeHash, sealEvent, type AuditEvent, type EventOrigin } from '../../../src/runtime/audit/record.js';

const text = fc.oneof(fc.string(), fc.constantFrom('caf\u00e9', '\u27e8!\u27e9', '\u{1f512}', 'a"b\\c', 'line\nbreak', 'x'.repeat(5000)));
const origin: fc.Arbitrary<EventOrigin> = fc.record({
  machine: fc.constant('m-0123456789abcdef'),
  host: fc.constantFrom('build-1', 'laptop.example.com'),
  project: fc.constantFrom('p1', 'proj:x'),
  seq: fc.nat(),
  prev_hash: fc.constant('a'.repeat(64)),
  event_hash: fc.constant('b'.repeat(64)),
});
const sealed = fc.record({ targets: fc.array(text, { maxLength: 3 }), reason: text, seq: fc.nat(), sid: fc.option(fc.constantFrom('s1', 'bench_2')), origin: fc.option(origin) }).map((g) => {
  const { event, line } = sealEvent(
    {
      type: 'gate_decision',
      actor: 'system:hook-gate',
      session_id: g.sid,
      data: { event: 'pre_tool', tool: 'Write', targets: g.targets, decision: 'block', rule: 'write.not_allowed', input_digest: 'c'.repeat(64), reason: g.reason },
      ...(g.origin === null ? {} : { origin: g.origin }),
    },
    g.seq,
    'd'.repeat(64),
  );
  return { event, line };
});

describe('the per-line checks of the verify', () => {
  it('takes a sealed line as canonical, and a line changed in one place only when it is still the canonical JSON of what it says', () => {
    fc.assert(
      fc.property(sealed, fc.nat(), fc.constantFrom(' ', '"', ',', '0', 'x', '\\', '}', '\u00e9'), ({ event, line }, at, ch) => {
        expect(isCanonicalEventLine(event, line)).toBe(true);
        const i = at % line.length;
        const changed = line.slice(0, i) + ch + line.slice(i + 1);
        let parsed: AuditEvent;
        try {
          parsed = JSON.parse(changed) as AuditEvent;
        } catch {
          return;
        }
        let expected: boolean;
        try {
          expected = canonicalJson(parsed) === changed;
        } catch {
          return;
        }
        // Only for events whose fields pass inspectEvent, as in the verify (the rest fail there first).
        if (inspectEvent(parsed) === null) expect(isCanonicalEventLine(parsed, changed)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('recomputes the hash a sealed line carries, over its bytes as UTF-8', () => {
    fc.assert(
      fc.property(sealed, ({ event, line }) => {
        expect(recomputeHash(line)).toBe(event.hash);
        const { hash: _hash, ...rest } = event;
        expect(recomputeHash(line)).toBe(createHash('sha256').update(canonicalJson(rest)).digest('hex'));
      }),
      { numRuns: 200 },
    );
  });
});
