// Single-key shortcuts for the page (n, j/k, Enter, t, a, s, ?), active only when focus
// is not in a text field, the terminal or a dialog, so typing is never hijacked.

/** What each shortcut does. */
export interface ShortcutActions {
  newSession: () => void;
  move: (delta: number) => void;
  openSelected: () => void;
  focusTerminal: () => void;
  focusApprovals: () => void;
  focusSessions: () => void;
  help: () => void;
}

/** The keys, for the help dialog and for dispatch. */
export const SHORTCUTS: readonly { keys: string; what: string }[] = [
  { keys: 'n', what: 'new session' },
  { keys: 'j / k', what: 'next / previous session' },
  { keys: 'Enter', what: 'attach the selected session and type into it' },
  { keys: 'Shift+Esc', what: 'leave the terminal (back to the sessions list)' },
  { keys: 't', what: 'focus the terminal' },
  { keys: 'a', what: 'go to the oldest pending approval' },
  { keys: 's', what: 'focus the sessions list' },
  { keys: '?', what: 'this help' },
];

/** True if keys typed at `target` belong to it (text entry, the terminal, a dialog). */
function ownsKeys(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  if (target.closest('input, textarea, select, [contenteditable], .xterm, dialog') !== null) return true;
  return false;
}

/**
 * Listens on `doc` for the page's shortcuts.
 * @example installShortcuts(document, { newSession: () => form.open(), … })
 */
export function installShortcuts(doc: Document, a: ShortcutActions): void {
  doc.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || ownsKeys(ev.target)) return;
    const onButton = ev.target instanceof HTMLButtonElement;
    const inList = ev.target instanceof Element && ev.target.closest('[role="listbox"]') !== null;
    const act: Record<string, (() => void) | undefined> = {
      n: a.newSession,
      j: () => a.move(1),
      k: () => a.move(-1),
      ArrowDown: inList ? () => a.move(1) : undefined,
      ArrowUp: inList ? () => a.move(-1) : undefined,
      // On a button, Enter presses the button.
      Enter: onButton ? undefined : a.openSelected,
      t: a.focusTerminal,
      a: a.focusApprovals,
      s: a.focusSessions,
      '?': a.help,
    };
    const run = act[ev.key];
    if (run === undefined) return;
    ev.preventDefault();
    run();
  });
}
