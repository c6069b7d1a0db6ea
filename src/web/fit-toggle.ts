// The phone layout's "Fit width" toggle: shrink the terminal's font so the PTY's columns fit
// the screen (the default), or keep it full size and scroll sideways; one choice per browser.

/** Where the choice is kept; anything but "off" means on, so a first visit fits. */
const FIT_KEY = 'gatehouse.fit-width';

/**
 * Drives `button` as an `aria-pressed` toggle, starting from the stored choice, and calls
 * `apply` with it at once and on every press.
 * @example installFitToggle(byId('fit-width', HTMLButtonElement), localStorage, (on) => terminal.setFitWidth(on))
 */
export function installFitToggle(button: HTMLButtonElement, storage: Storage, apply: (on: boolean) => void): void {
  const show = (on: boolean): void => {
    button.setAttribute('aria-pressed', String(on));
    button.title = on ? 'The whole width of the terminal is shown, in a smaller font: press for full size, scrolling sideways' : 'Full-size font, scrolling sideways: press to fit the whole width';
    apply(on);
  };
  button.addEventListener('click', () => {
    const on = button.getAttribute('aria-pressed') !== 'true';
    storage.setItem(FIT_KEY, on ? 'on' : 'off');
    show(on);
  });
  show(storage.getItem(FIT_KEY) !== 'off');
}
