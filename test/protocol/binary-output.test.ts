// The binary `pty.output` layout read back by the decoder the dashboard uses, from frames the
// gateway builds; anything else in a binary message is refused, not misread.
import { describe, expect, it } from 'vitest';
import { binaryOutputFrame, binaryOutputHead } from '../../src/gateway/ws/frames.js';
import { decodeBinaryOutput } from '../../src/protocol/index.js';

describe('decodeBinaryOutput', () => {
  it('reads back the session, both seqs, the time and the exact bytes of a gateway frame', () => {
    const bytes = Buffer.from([0x00, 0xff, 0xe2, 0x82, 0x0a]);
    const frame = binaryOutputFrame(binaryOutputHead('sess-é"1', 7), 42, 1_700_000_000_000, bytes);
    const e = decodeBinaryOutput(frame);
    expect(e === null ? null : { ...e, data: { ...e.data, data: Buffer.from(e.data.data) } }).toEqual({
      topic: 'pty.output',
      data: { session_id: 'sess-é"1', seq: 7, data: bytes },
      seq: 42,
      ts: 1_700_000_000_000,
    });
  });

  it('refuses an unknown kind, a short frame and a header that is not a pty.output event', () => {
    const good = binaryOutputFrame(binaryOutputHead('s', 1), 1, 1, Buffer.from('x'));
    expect(decodeBinaryOutput(Uint8Array.from([0x02, ...good.subarray(1)]))).toBeNull();
    expect(decodeBinaryOutput(good.subarray(0, 2))).toBeNull();
    expect(decodeBinaryOutput(Uint8Array.from([0x01, 0xff, 0xff, 0x7b]))).toBeNull();
    const header = Buffer.from('{"topic":"pty.exit","data":{"session_id":"s","seq":1},"seq":1,"ts":1}');
    expect(decodeBinaryOutput(Buffer.concat([Buffer.from([0x01, 0, header.length]), header]))).toBeNull();
  });
});
