// Pure text helpers for the dashboard: how old a session is, how it ended, what to call
// it, and how a typed command line splits into argv. No DOM, so they test under Node.
import { splitCommand } from '../core/argv.js';
import type { PtyExit, PtyInfo } from './wire.js';

/**
 * Epoch milliseconds of an ISO 8601 string; NaN if unreadable.
 * @example timeMs('1970-01-01T00:00:01Z') // 1000
 */
export function timeMs(t: string): number {
  return Date.parse(t);
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
 * How a session ended, in a few words: `exit 0`, `SIGKILL`, `evicted · SIGHUP`.
 * @example formatExit({ exit_code: 0, signal: null, reason: 'exited' }) // 'exit 0'
 */
export function formatExit(exit: PtyExit | null): string {
  if (exit === null) return '';
  const parts: string[] = [];
  if (exit.reason !== 'exited') parts.push(exit.reason);
  if (exit.signal !== null) parts.push(exit.signal);
  else if (exit.exit_code !== null) parts.push(`exit ${exit.exit_code}`);
  return parts.join(' · ');
}

/** The last path segment of a command (`/usr/bin/bash` → `bash`). */
function baseName(command: string): string {
  return (
    command
      .split('/')
      .filter((s) => s !== '')
      .at(-1) ?? command
  );
}

/**
 * What the sessions list calls a session: its label (a gated session's names its agent), or its command line.
 * @example sessionTitle({ command: '/bin/bash', args: ['-l'] } as PtyInfo) // 'bash -l'
 */
export function sessionTitle(info: Pick<PtyInfo, 'command' | 'args' | 'label'>): string {
  if (info.label !== undefined && info.label !== '') return info.label;
  return [baseName(info.command), ...info.args].join(' ');
}

/**
 * Splits a command line into argv with the same word rules as the server (core/argv.ts):
 * quotes and backslashes group words, nothing is expanded. An empty line is no words; null
 * when the line cannot be split (an unclosed quote, a trailing lone backslash).
 * @example splitCommandLine(`git commit -m "first try"`) // ['git', 'commit', '-m', 'first try']
 */
export function splitCommandLine(line: string): string[] | null {
  if (line.trim() === '') return [];
  const argv = splitCommand(line);
  return argv.ok ? argv.value : null;
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
