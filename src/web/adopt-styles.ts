// Lets xterm.js run under a CSP without 'unsafe-inline' styles: the `<style>` elements it
// creates for its theme and cell sizes become constructed stylesheets, which CSP allows.

/**
 * From now on, `doc.createElement('style')` returns an inert `<template>` stand-in whose
 * `textContent` is routed into a constructed stylesheet adopted by `doc`. A CSP governs
 * inline `<style>` text (and blocks even an empty `<style>` element once connected), but
 * not stylesheets built through the CSSOM. xterm's DOM renderer creates such elements
 * lazily, appends them, assigns only `textContent` and calls `remove()`; it never reads
 * `.sheet`. The page itself creates no `<style>` elements, so nothing else is affected.
 * @example adoptInlineStyles(document); new Terminal().open(el)
 */
export function adoptInlineStyles(doc: Document): void {
  const create = doc.createElement.bind(doc) as (tag: string, options?: ElementCreationOptions) => HTMLElement;
  const patched = (tag: string, options?: ElementCreationOptions): HTMLElement => {
    if (tag.toLowerCase() !== 'style') return create(tag, options);
    const stand = create('template');
    stand.dataset.adoptedStyle = '';
    routeToSheet(doc, stand);
    return stand;
  };
  Object.defineProperty(doc, 'createElement', { value: patched, configurable: true, writable: true });
}

function routeToSheet(doc: Document, el: HTMLElement): void {
  const sheet = new CSSStyleSheet();
  let text = '';
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  Object.defineProperty(el, 'textContent', {
    configurable: true,
    get: () => text,
    set: (value: string | null) => {
      text = value ?? '';
      sheet.replaceSync(text);
    },
  });
  // When xterm removes the element (terminal disposed), its rules go too.
  const remove = el.remove.bind(el);
  el.remove = () => {
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
    remove();
  };
}
