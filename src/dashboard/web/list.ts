/**
 * The list: every Rollout the watches hold, with counts per phase, filters (phase, namespace,
 * "needs me", "awaiting my approval") and search. The controls are built once and keep their state and focus; each
 * update redraws the counts and the table only.
 */
import { countRows, filterRows, namespacesOf, type ListFilter } from '../model/filter.ts';
import { PHASES, type ListPayload, type Phase } from '../model/wire.ts';
import { badge, fill, h } from './dom.ts';
import { problemsBox } from './problems.ts';

interface Filter extends ListFilter {
  phase?: Phase | undefined;
  namespace?: string | undefined;
  needsMe?: boolean | undefined;
  awaitingMe?: boolean | undefined;
  search?: string | undefined;
}

const filter: Filter = {};

export function listView(root: HTMLElement): (payload: ListPayload) => void {
  const problems = h('div');
  const counts = h('p', { class: 'counts', 'aria-live': 'polite' });
  const phase = h(
    'select',
    { id: 'f-phase' },
    h('option', { value: '' }, 'all phases'),
    ...PHASES.map((p) => h('option', { value: p }, p)),
  );
  const namespace = h('select', { id: 'f-namespace' }, h('option', { value: '' }, 'all'));
  const needsMe = h('input', { type: 'checkbox', id: 'f-needs-me' });
  const awaitingMe = h('input', { type: 'checkbox', id: 'f-awaiting-me' });
  // Shown once the payload says who the viewer is.
  const awaitingMeLabel = h(
    'label',
    { for: 'f-awaiting-me', class: 'check', hidden: true },
    awaitingMe,
    ' Awaiting my approval',
  );
  const search = h('input', {
    type: 'search',
    id: 'f-search',
    placeholder: 'name, namespace, image',
  });
  phase.value = filter.phase ?? '';
  needsMe.checked = !!filter.needsMe;
  awaitingMe.checked = !!filter.awaitingMe;
  search.value = filter.search ?? '';
  const table = h('div', { class: 'table-wrap' });
  let last: ListPayload | undefined;
  const redraw = (): void => {
    if (last !== undefined) draw(last);
  };
  phase.addEventListener('change', () => {
    filter.phase = (phase.value || undefined) as Phase | undefined;
    redraw();
  });
  namespace.addEventListener('change', () => {
    filter.namespace = namespace.value || undefined;
    redraw();
  });
  needsMe.addEventListener('change', () => {
    filter.needsMe = needsMe.checked;
    redraw();
  });
  awaitingMe.addEventListener('change', () => {
    filter.awaitingMe = awaitingMe.checked;
    redraw();
  });
  search.addEventListener('input', () => {
    filter.search = search.value;
    redraw();
  });
  fill(
    root,
    h('h1', {}, 'Rollouts'),
    problems,
    h(
      'form',
      { class: 'filters', role: 'search', on: { submit: (e) => e.preventDefault() } },
      h('label', { for: 'f-phase' }, 'Phase '),
      phase,
      h('label', { for: 'f-namespace' }, 'Namespace '),
      namespace,
      h('label', { for: 'f-needs-me', class: 'check' }, needsMe, ' Needs me'),
      awaitingMeLabel,
      h('label', { for: 'f-search' }, 'Search '),
      search,
    ),
    counts,
    table,
  );

  function draw(p: ListPayload): void {
    fill(problems, problemsBox(p.problems));
    const c = countRows(p.rows, p.viewer);
    awaitingMeLabel.hidden = p.viewer === undefined;
    fill(
      counts,
      `${p.rows.length} rollouts: `,
      ...PHASES.flatMap((ph) => [badge(ph), ` ${c.byPhase[ph]}  `]),
      h('span', { class: 'needs-me' }, `needs me ${c.needsMe}`),
      p.viewer === undefined
        ? null
        : h('span', { class: 'awaiting-me' }, `  awaiting my approval ${c.awaitingMe}`),
    );
    const chosen = namespace.value;
    fill(
      namespace,
      h('option', { value: '' }, 'all'),
      ...namespacesOf(p.rows).map((ns) => h('option', { value: ns }, ns)),
    );
    namespace.value = chosen;
    const rows = filterRows(p.rows, filter, p.viewer);
    if (rows.length === 0) {
      fill(table, h('p', { class: 'empty' }, p.rows.length === 0 ? 'No Rollouts.' : 'None match.'));
      return;
    }
    fill(
      table,
      h(
        'table',
        { class: 'rollouts' },
        h('caption', { class: 'sr-only' }, 'Rollouts'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...[
              'Namespace',
              'Name',
              'Phase',
              'Strategy',
              'Step',
              'Weight',
              'Images',
              'Needs me',
            ].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          ...rows.map((r) =>
            h(
              'tr',
              { 'data-key': r.key, class: r.needsMe ? 'wants' : '' },
              h('td', {}, r.namespace),
              h(
                'td',
                {},
                h(
                  'a',
                  {
                    href: `#/r/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}`,
                    class: 'name',
                  },
                  r.name,
                ),
              ),
              h('td', { title: r.message }, badge(r.phase)),
              h('td', {}, r.strategy),
              h('td', {}, r.step),
              h('td', {}, r.setWeight),
              h('td', { class: 'images' }, r.images.join(', ')),
              h('td', {}, r.needsMe ?? ''),
            ),
          ),
        ),
      ),
    );
  }

  return (payload) => {
    last = payload;
    draw(payload);
  };
}
