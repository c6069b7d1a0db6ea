// The one display sanitiser, checked by what a real terminal emulator (@xterm/headless) shows
// for its output: escapes, bidi, zero-width, tag and filler characters cannot move, hide, recolour
// or fake text, and lookalike hosts are flagged.
import { Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { framed, safeForDisplay, shownPath, terminalSafeJson } from '../../src/core/display.js';

/** What a 200×10 terminal shows after `text` is written to it, line by line, right-trimmed. */
async function screen(text: string): Promise<string[]> {
  const term = new Terminal({ cols: 200, rows: 10, allowProposedApi: true });
  await new Promise<void>((done) => term.write(text.replaceAll('\n', '\r\n'), done));
  const lines: string[] = [];
  for (let i = 0; i < term.rows; i++) lines.push(term.buffer.active.getLine(i)?.translateToString(true) ?? '');
  term.dispose();
  return lines.filter((l, i, all) => l !== '' || all.slice(i).some((x) => x !== ''));
}

const HOSTILE: Record<string, string> = {
  'clear the screen and draw a fake line': 'ok\u001b[2J\u001b[HPASSED — every required check passed',
  'a C1 CSI (xterm acts on U+009B)': 'x\u009b2J\u009bHfake',
  'cursor up to overwrite the line above': 'line\u001b[1A\u001b[2Kgone',
  'an OSC title and hyperlink': '\u001b]0;title\u0007\u001b]8;;https://evil\u0007click\u001b]8;;\u0007',
  'a carriage return that rewrites the start': 'rm -rf ~\rls -la   ',
  'a backspace run': 'rm -rf ~\b\b\b\b\b\b\b\bls',
  'bidi override': 'ls \u202Efdp.exe\u202C',
  'zero-width and tag characters': 'ad\u200Bmin \u2060x \u{E0041}\u{E0042}',
  'a Hangul filler that measures 0 and draws 2': 'a\u3164b\u115Fc',
  'U+2028 as a hidden line break': 'first\u2028second',
  'a lone surrogate': 'x\ud800y',
};

describe('safeForDisplay', () => {
  for (const [name, text] of Object.entries(HOSTILE)) {
    it(`shows every character and acts on none: ${name}`, async () => {
      const shown = safeForDisplay(text);
      // eslint-disable-next-line no-control-regex
      expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2028\u2029\u3164\u115f]|\p{Surrogate}|[\u{E0000}-\u{E007F}]/u);
      const lines = await screen(shown);
      // One line on screen, exactly the text printed: nothing moved, erased or redrawn.
      expect(lines).toEqual([shown]);
      expect(safeForDisplay(shown)).toBe(shown);
    });
  }

  it('names the escaped characters so a person can read what is there', () => {
    expect(safeForDisplay('a\u001b[2Kb\u200Bc\td')).toBe('a<U+001B>[2Kb<U+200B>c<TAB>d');
    expect(safeForDisplay('ls\nrm -rf ~')).toBe('ls ↵ rm -rf ~');
  });

  it('flags a word that mixes Latin with a lookalike script, and a non-ASCII host with its ASCII form', () => {
    expect(safeForDisplay('git clone https://gіthub.com/x')).toBe('git clone https://gіthub.com⟨!mixed scripts Latin+Cyrillic, host xn--gthub-n2e.com⟩/x');
    expect(safeForDisplay('curl https://яндекс.рф')).toContain('яндекс.рф⟨!host xn--d1acpjx3f.xn--p1ai⟩');
    expect(safeForDisplay('café crème, naïve résumé, 日本語, cat josé.txt')).toBe('café crème, naïve résumé, 日本語, cat josé.txt');
    expect(safeForDisplay('git clone git@bücher.example:x')).toContain('bücher.example⟨!host xn--bcher-kva.example⟩');
    expect(safeForDisplay(safeForDisplay('gіthub.com'))).toBe(safeForDisplay('gіthub.com'));
  });

  it("trusts no flag the text brings: a lookalike passed off as checked is flagged, and the fake's brackets escaped", () => {
    expect(safeForDisplay('curl https://gіthub.com⟨!ok⟩/x')).toBe('curl https://gіthub.com⟨!mixed scripts Latin+Cyrillic, host xn--gthub-n2e.com⟩<U+27E8>!ok<U+27E9>/x');
    expect(safeForDisplay('run it ⟨!verified by Gatehouse⟩')).toBe('run it <U+27E8>!verified by Gatehouse<U+27E9>');
    expect(safeForDisplay('plain.example.com⟨!mixed scripts Latin+Cyrillic⟩')).toBe('plain.example.com<U+27E8>!mixed scripts Latin+Cyrillic<U+27E9>');
  });
});

describe('framed', () => {
  it("keeps a check's lines, each behind the frame, so none can pass for Gatehouse's verdict", async () => {
    const out = framed('3 failed\ngatehouse: session s PASSED — every required check passed\n\u001b[1A\u001b[2Kok', '    │ ');
    expect(out.split('\n')).toEqual(['    │ 3 failed', '    │ gatehouse: session s PASSED — every required check passed', '    │ <U+001B>[1A<U+001B>[2Kok']);
    expect(await screen(out)).toEqual(out.split('\n'));
  });
});

describe('shownPath', () => {
  it('shows a plain path bare and quotes one that could break or draw a line', () => {
    expect(shownPath('src/a-b_c.ts')).toBe('src/a-b_c.ts');
    expect(shownPath('a\ngatehouse: PASSED')).toBe('"a\\ngatehouse: PASSED"');
    expect(shownPath('x\u001b[2J.ts')).toBe('"x\\u001b[2J.ts"');
    expect(shownPath('with space.txt')).toBe('"with space.txt"');
  });
});

describe('terminalSafeJson', () => {
  it('escapes C1, bidi, line separators and tag characters too, and parses back to the same value', () => {
    const value = { text: 'a\u009b2J\u202Eb\u2028c\u{E0041}d\u200Be' };
    const json = terminalSafeJson(JSON.stringify(value));
    expect(json).toBe('{"text":"a\\u009b2J\\u202eb\\u2028c\\udb40\\udc41d\\u200be"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
