/** Blue-green: which revision the active and preview Services select, the analyses, and the
 *  pause before the switch with the time left until it promotes itself. */
import type { StrategyPart } from '../../model/wire.ts';
import { h } from '../dom.ts';
import { linesList } from './lines.ts';

type BlueGreen = Extract<StrategyPart, { kind: 'blueGreen' }>;

export function blueGreenPart(part: BlueGreen): HTMLElement {
  return h(
    'section',
    { class: 'strategy blue-green', 'aria-labelledby': 'strategy-title' },
    h('h2', { id: 'strategy-title' }, 'Blue-green'),
    part.endsAt !== undefined
      ? h(
          'p',
          {},
          'Promotes itself: ',
          h('span', { class: 'left', 'data-ends-at': part.endsAt }, ''),
        )
      : null,
    linesList(part.lines),
  );
}
