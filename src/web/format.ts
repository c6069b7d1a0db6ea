// Pure text helpers for the dashboard: how old a session is, how it ended, what to call
// it, and how a typed command line splits into argv. No DOM, so they test under Node.
import type { PtyExit, PtyInfo } from './wire.js';

/**
 * Epoch milliseconds of an ISO 8601 string or an epoch-ms number; NaN if unreadable.
 * @example timeMs('1970-01-01T00:00:01Z') // 1000
 */
export function timeMs(t: string | number): number {
  return typeof t === 'number' ? t : Date.parse(t);
}

/**
 * A short age like `42s`, `5m`, `3h`, `2d`.
 * @example formatAge(Date.parse('2025-01-01T00:00:00Z'), Date.parse('2025-01-01T00:05:30Z')) // '5m'
 */
export function formatAge(fromMs: number, nowMs: number): string {
  if (Number.isNaN(fromMs)) return '?';
  const s = Math.max(0, Math.floor((nowMs - fromMs) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/**
 * How a session ended, in a few words: `exit 0`, `SIGKILL`, `evicted`, plus the verdict.
 * @example formatExit({ exit_code: 0, signal: null, reason: 'exited' }) // 'exit 0'
 */
export function formatExit(exit: PtyExit | null): string {
  if (exit === null) return '';
  const parts: string[] = [];
  if (exit.reason !== 'exited' && exit.reason !== '') parts.push(exit.reason);
  if (exit.signal !== null && exit.signal !== 0 && exit.signal !== '') {
    parts.push(typeof exit.signal === 'number' ? `signal ${exit.signal}` : exit.signal);
  } else if (exit.exit_code !== null) {
    parts.push(`exit ${exit.exit_code}`);
  }
  if (exit.verdict !== undefined) parts.push(exit.verdict);
  return parts.join(' · ');
}

/** The last path segment of a command (`/usr/bin/bash` → `bash`). */
function baseName(command: string): string {
  return command.split('/').filter((s) => s !== '').at(-1) ?? command;
}

/**
 * What the sessions list calls a session: its label, its agent, or its command line.
 * @example sessionTitle({ command: '/bin/bash', args: ['-l'] } as PtyInfo) // 'bash -l'
 */
export function sessionTitle(info: Pick<PtyInfo, 'command' | 'args' | 'label' | 'agent'>): string {
  if (info.label !== undefined && info.label !== '') return info.label;
  if (info.agent !== undefined && info.agent !== '') return info.agent;
  return [baseName(info.command), ...info.args].join(' ');
}

/**
 * Splits a command line the way a shell would for plain words, `'single'` and `"double"`
 * quotes and backslash escapes; no expansion. Null when a quote is left open.
 * @example splitCommandLine(`git commit -m "first try"`) // ['git', 'commit', '-m', 'first try']
 */
export function splitCommandLine(line: string): string[] | null {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] ?? '')) cur += line[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote !== null) return null;
  if (inWord) out.push(cur);
  return out;
}

/**
 * Non-empty trimmed lines of a textarea (an allowlist, a list of checks).
 * @example lines(' src/**\n\n test/ ') // ['src/**', 'test/']
 */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}
