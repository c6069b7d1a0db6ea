// Pure text helpers of the approvals panel: make agent-supplied text safe to print
// in a terminal, and say how long an approval has left in a few characters.

/**
 * C0 controls, DEL and C1 controls. Tool names and summaries come from the agent, so an
 * escape sequence in them could move the cursor or recolour the panel (or worse).
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001F\u007F-\u009F]+/g;

/**
 * Turns untrusted text into one printable line: control characters and runs of
 * whitespace become a single space.
 * @example displayText('rm -rf\n\u001B[2Jbuild') // 'rm -rf [2Jbuild'
 */
export function displayText(text: string): string {
  return text.replace(CONTROL_CHARS, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Time left before an approval expires, in the two largest units.
 * @example formatTimeLeft(272_000) // '4m 32s'
 */
export function formatTimeLeft(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  const total = Math.ceil(ms / 1000);
  if (total <= 0) return 'expired';
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}

/** Removes control characters but keeps spaces: for text the user is typing. */
export function stripControl(text: string): string {
  return text.replace(CONTROL_CHARS, '');
}
