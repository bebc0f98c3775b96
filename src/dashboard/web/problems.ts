/** What the watches could not read (forbidden, not served): said on every page, in words. */
import { h } from './dom.ts';

export function problemsBox(problems: readonly string[]): HTMLElement | null {
  if (problems.length === 0) return null;
  return h(
    'div',
    { class: 'problems', role: 'alert' },
    h('strong', {}, 'Not everything can be shown:'),
    h('ul', {}, ...problems.map((p) => h('li', {}, p))),
  );
}
