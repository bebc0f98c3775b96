/** The canary: its steps (done, current, pending; time left on a timed pause) and weights. */
import type { StrategyPart } from '../../model/wire.ts';
import { h } from '../dom.ts';
import { linesList } from './lines.ts';

type Canary = Extract<StrategyPart, { kind: 'canary' }>;

const MARK = { done: '✓', current: '▶', pending: '·' } as const;

export function canaryPart(part: Canary): HTMLElement {
  return h(
    'section',
    { class: 'strategy canary', 'aria-labelledby': 'strategy-title' },
    h('h2', { id: 'strategy-title' }, 'Canary'),
    h(
      'p',
      { class: 'weights' },
      'Weight: desired ',
      h('strong', { 'data-weight': 'desired' }, `${part.setWeight}%`),
      ', actual ',
      h('strong', { 'data-weight': 'actual' }, `${part.actualWeight}%`),
    ),
    h(
      'meter',
      { min: 0, max: 100, value: part.actualWeight, 'aria-label': 'actual canary weight' },
      `${part.actualWeight}%`,
    ),
    part.steps.length === 0
      ? h('p', {}, 'No steps: the update goes straight to the new version.')
      : h(
          'ol',
          { class: 'steps', 'aria-label': 'steps' },
          ...part.steps.map((s, i) =>
            h(
              'li',
              {
                class: `step ${s.state}`,
                ...(s.state === 'current' ? { 'aria-current': 'step' } : {}),
              },
              h('span', { class: 'mark', 'aria-hidden': 'true' }, MARK[s.state]),
              ` ${i + 1}. ${s.label}`,
              s.state === 'current' ? h('span', { class: 'sr-only' }, ' (current step)') : null,
              s.endsAt !== undefined
                ? h('span', { class: 'left', 'data-ends-at': s.endsAt }, '')
                : null,
              s.waitsForPerson ? h('span', { class: 'wants-tag' }, 'waits for a person') : null,
            ),
          ),
        ),
    linesList(part.lines),
  );
}
