/** The strategy's `Label: value` lines, as a definition list. */
import type { StrategyLine } from '../../model/wire.ts';
import { h } from '../dom.ts';

export const linesList = (lines: readonly StrategyLine[]): HTMLElement =>
  h(
    'dl',
    { class: 'lines' },
    ...lines.flatMap(([label, value]) => [
      h('dt', {}, label.replace(/:$/, '')),
      h('dd', {}, value),
    ]),
  );
