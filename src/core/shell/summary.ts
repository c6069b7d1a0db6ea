// The verdict on a whole command line, in words: the worst command's class decides, and its
// reason says what to do (a refusal with the way that is allowed, a request for review, or "read-only commands only").
import type { ShellAnalysis } from './classify.js';
import type { SimpleCommandInfo } from './flow.js';
import { CLASS_RANK, type ShellClass } from './judgement.js';
import type { Unread } from './unread.js';
import type { WriteTarget } from './write-target.js';
import { clause, sentence } from '../sentence.js';

/** Longest command text quoted in a reason; the full argv is in `commands`. */
const MAX_SHOWN_CHARS = 160;

/** The analysis of a parsed command line from the verdicts on its simple commands. */
export function summarize(commands: SimpleCommandInfo[], writeTargets: WriteTarget[]): ShellAnalysis {
  const top = commands.reduce<SimpleCommandInfo | null>((best, c) => (best === null || CLASS_RANK[c.class] > CLASS_RANK[best.class] ? c : best), null);
  const cls: ShellClass = top?.class ?? 'approve';
  const base = { class: cls, commands, writeTargets, parsed: true, rule: top?.rule ?? 'empty', ...(top?.kb ? { kb: top.kb } : {}) };
  if (top === null) return { ...base, reason: 'The command runs nothing.' };
  const shown = show(top.argv);
  if (cls === 'deny') {
    const next = top.instead ? sentence(`Instead, ${top.instead}`) : 'Do not retry it or reach the same effect another way.';
    return { ...base, reason: `${sentence(`Gatehouse refused \`${shown}\`: ${top.reason}`)} ${next}` };
  }
  if (cls === 'ask') {
    const more = commands.filter((c) => c.class === 'ask').length - 1;
    const others = more === 0 ? '' : ` (and ${more} more ${more === 1 ? 'command needs' : 'commands need'} review)`;
    return { ...base, reason: sentence(`Gatehouse needs a person to approve \`${shown}\`: ${clause(top.reason)}${others}`) };
  }
  const names = [...new Set(commands.map((c) => c.argv[0]).filter((a) => a !== undefined))];
  return { ...base, reason: `Read-only commands only (${names.join(', ')}).` };
}

/**
 * The analysis of a command line that did not parse whole, from the analysis of the lines before
 * the error (`prefix`) and what the lenient scan found: refused if any part could write, else asked.
 */
export function unreadSummary(prefix: ShellAnalysis, parseError: string, unread: Unread, ranLines: boolean): ShellAnalysis {
  const base = { commands: prefix.commands, writeTargets: prefix.writeTargets, parsed: false, unread, rule: 'unparsed' };
  if (prefix.class === 'deny') return { ...base, class: 'deny', reason: prefix.reason, rule: prefix.rule };
  if (unread.couldWrite) {
    const ran = ranLines ? ', and bash would still run the lines before the error' : '';
    return {
      ...base,
      class: 'deny',
      reason: `Gatehouse refused this command: it does not parse (${parseError}) and part of it could write files${ran}. Instead, fix the syntax (or split the command into smaller ones that each parse) and run it again.`,
    };
  }
  return { ...base, class: 'ask', reason: `Gatehouse could not parse this command (${parseError}), so a person must review it.` };
}

function show(argv: readonly string[]): string {
  const s = argv.join(' ');
  return s.length > MAX_SHOWN_CHARS ? `${s.slice(0, MAX_SHOWN_CHARS)}…` : s;
}
