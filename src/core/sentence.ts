// Joining reasons into sentences: a reason may or may not end with its own full stop (a person
// typed it, a library wrote it), and the text around it must read the same either way.

/**
 * `text` ending with exactly one sentence-ending mark: a full stop is added unless it already
 * ends with `.`, `!` or `?`.
 * @example `${sentence(reason)} Try again.` // never "..", never a missing period
 */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * `text` without its closing full stops, for quoting a reason inside a longer sentence
 * (before `)`, `;` or the sentence's own period).
 * @example `(the classifier: ${clause(reason)})`
 */
export function clause(text: string): string {
  return text.trim().replace(/(?<!\.)\.$/, '');
}
