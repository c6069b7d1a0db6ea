// Reading the log by lines in megabyte chunks: every line whole, whatever chunk boundary it
// crosses or how long it is; ASCII read fast, other UTF-8 decoded, invalid UTF-8 kept as bytes.
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeText, readTextLines, type TextLine } from '../../../src/runtime/audit/lines.js';
import { tempDir } from '../../support/cli.js';

function readAll(content: Buffer): TextLine[] {
  const file = join(tempDir(), 'log.jsonl');
  writeFileSync(file, content);
  const fd = openSync(file, 'r');
  try {
    return [...readTextLines(fd)];
  } finally {
    closeSync(fd);
  }
}

describe('readTextLines', () => {
  it('yields every line whole across chunk boundaries, ASCII and other UTF-8 alike', () => {
    const lines: string[] = [];
    // Lengths that fall on every offset of a megabyte boundary sooner or later; some lines not ASCII.
    for (let i = 0, total = 0; total < 3.5 * 1024 * 1024; i++) {
      const line = `${i}:${(i % 7 === 0 ? 'caf\u00e9 \u{1f512} ' : 'x').repeat(1 + ((i * 37) % 900))}`;
      lines.push(line);
      total += Buffer.byteLength(line) + 1;
    }
    const got = readAll(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
    expect(got.map((l) => l.text)).toEqual(lines);
    expect(got.every((l) => l.complete && l.bytes === null)).toBe(true);
  });

  it('reads a line longer than a chunk, and the lines around it', () => {
    const long = `{"big":"${'y'.repeat(2.5 * 1024 * 1024)}"}`;
    const got = readAll(Buffer.from(`first\n${long}\nlast\n`));
    expect(got.map((l) => l.text.length)).toEqual([5, long.length, 4]);
    expect(got[1]!.text).toBe(long);
  });

  it('yields a torn last line as incomplete, with its exact bytes', () => {
    const got = readAll(Buffer.from('one\ntwo\nthr'));
    expect(got.map((l) => [l.text, l.complete])).toEqual([
      ['one', true],
      ['two', true],
      ['thr', false],
    ]);
    expect(got[2]!.bytes?.toString('latin1')).toBe('thr');
  });

  it('keeps the exact bytes of a line that is not valid UTF-8', () => {
    const bad = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const got = readAll(Buffer.concat([Buffer.from('ok\n'), bad, Buffer.from('\nafter\n')]));
    expect(got).toHaveLength(3);
    expect(got[1]!.bytes?.equals(bad)).toBe(true);
    expect(got[2]!.text).toBe('after');
  });
});

describe('decodeText', () => {
  it('reads ASCII and UTF-8 to the same text UTF-8 decoding gives, and refuses invalid UTF-8', () => {
    for (const s of ['{"plain":"ascii"}', 'caf\u00e9', '\u27e8!\u27e9 \u{1f512}', '']) expect(decodeText(Buffer.from(`${s}\nrest`), Buffer.byteLength(s))).toBe(s);
    expect(decodeText(Buffer.from([0x61, 0xff, 0x62]), 3)).toBeNull();
  });
});
