// Two DOM helpers: build an element with attributes and children (text is always set as
// text, never parsed as HTML), and find a required element of the page by id and type.

/** Attribute values; `false`/undefined leave the attribute off, `true` sets it empty. */
export type Attrs = Record<string, string | boolean | undefined>;

/**
 * Creates `<tag>` with `attrs` and `children`; strings become text nodes.
 * @example h('button', { class: 'allow', type: 'button' }, 'Allow')
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  el.append(...children);
  return el;
}

/**
 * The page's element `#id`, which must exist and be a `type`; a missing one is a bug in index.html.
 * @example byId('sessions', HTMLUListElement)
 */
export function byId<T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`index.html has no <${type.name}> #${id}`);
  return el;
}
