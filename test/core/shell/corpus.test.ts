import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';
import { DANGEROUS, READ_ONLY, withVariants } from './corpus.js';

const ctx: ShellContext = { cwd: '/srv/repo', protectedPaths: ['/srv/repo/.gatehouse/'] };

/** The share of plainly read-only commands that must be approved without asking. */
const MIN_APPROVE_RATE = 0.85;

describe('the labelled corpus', () => {
  it(`auto-approves at least ${MIN_APPROVE_RATE * 100}% of the plainly read-only commands, reported per class`, () => {
    let approved = 0;
    let total = 0;
    const missed: string[] = [];
    const rates: string[] = [];
    for (const [cls, base] of Object.entries(READ_ONLY)) {
      const cmds = withVariants(base);
      const ok = cmds.filter((c) => analyzeShell(c, ctx).class === 'approve');
      for (const c of base) if (analyzeShell(c, ctx).class !== 'approve') missed.push(`${c}: ${analyzeShell(c, ctx).reason}`);
      rates.push(`${cls}: ${ok.length}/${cmds.length} (${Math.round((100 * ok.length) / cmds.length)}%)`);
      approved += ok.length;
      total += cmds.length;
    }
    console.log(`read-only approve rate by class:\n  ${rates.join('\n  ')}\n  all: ${approved}/${total}\nasked:\n  ${missed.join('\n  ')}`);
    expect(total).toBeGreaterThan(1000);
    expect(approved / total).toBeGreaterThanOrEqual(MIN_APPROVE_RATE);
  });

  for (const [cls, base] of Object.entries(DANGEROUS)) {
    it(`never auto-approves a ${cls} command, in any variant`, () => {
      const cmds = withVariants(base);
      expect(cmds.length).toBeGreaterThan(150);
      const approved = cmds.filter((c) => analyzeShell(c, ctx).class === 'approve');
      expect(approved).toEqual([]);
    });
  }
});
