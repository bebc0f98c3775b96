/**
 * Building the page: elements with attributes and children, text always as text nodes. Nothing
 * here (nor anywhere in the page) assigns innerHTML: a name or a message holding `<script>` is
 * shown as those characters.
 */

type Child = Node | string | number | false | null | undefined;

export interface Props {
  readonly [attribute: string]: string | number | boolean | undefined | Listeners;
}

interface Listeners {
  readonly [event: string]: (e: Event) => void;
}

/** `h('a', { href: '#/', class: 'x', on: { click } }, 'text', child)` */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'on' && typeof value === 'object') {
      for (const [event, fn] of Object.entries(value)) el.addEventListener(event, fn);
    } else if (value === true) el.setAttribute(key, '');
    else if (typeof value === 'string' || typeof value === 'number') {
      el.setAttribute(key, String(value));
    }
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === false || c === null || c === undefined) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? text(String(c)) : c);
  }
}

export const text = (s: string): Text => document.createTextNode(s);

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, ...children);
}

/** `3m ago`, `just now`; '' without a time. */
export function ago(at: number | undefined, now: number): string {
  if (at === undefined) return '';
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 5) return 'just now';
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  if (s < 172800) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

/** A phase as a badge: the word (never colour alone) on a colour. */
export const badge = (phase: string): HTMLElement =>
  h('span', { class: `badge phase-${phase.toLowerCase()}` }, phase);
