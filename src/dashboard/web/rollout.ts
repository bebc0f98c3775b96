/**
 * One Rollout: phase and message, the actions, the strategy's part (a component chosen by the
 * strategy, web/strategies/), images, revisions with their ReplicaSets and pods, analysis runs,
 * conditions and recent Events. Redrawn whole on each update (a few hundred nodes), but for the
 * action bar while its offers are unchanged (actions.ts: a click is never split across a redraw);
 * the focused button and the last action's answer are kept.
 */
import type { DetailPayload, DetailView } from '../model/wire.ts';
import { actionBar, restoreAnswer } from './actions.ts';
import { ago, badge, fill, h } from './dom.ts';
import { problemsBox } from './problems.ts';
import { strategyComponent } from './strategies/index.ts';
import { tick } from './clock.ts';
import { metricChart } from './chart.ts';

export function rolloutView(root: HTMLElement): (payload: DetailPayload) => void {
  return (p) => {
    const focused = (document.activeElement as HTMLElement | null)?.dataset['action'];
    fill(
      root,
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, '← all Rollouts')),
      problemsBox(p.problems),
      p.detail === null
        ? h('h1', {}, `${p.key}: not found (deleted, or not in the watched namespaces)`)
        : detail(p.detail, p.now),
    );
    if (focused !== undefined) {
      root.querySelector<HTMLElement>(`button[data-action="${focused}"]`)?.focus();
    }
    tick();
  };
}

function detail(d: DetailView, now: number): DocumentFragment {
  const info = d.info;
  const { bar, result } = actionBar(info.namespace, info.name, d.actions);
  restoreAnswer(`${info.namespace}/${info.name}`, result);
  const frag = document.createDocumentFragment();
  frag.append(
    h(
      'h1',
      {},
      h('span', { class: 'ns' }, `${info.namespace} / `),
      h('span', { class: 'name' }, info.name),
      ' ',
      badge(info.phase),
    ),
    info.message ? h('p', { class: 'message' }, info.message) : '',
    d.needsMe ? h('p', { class: 'wants-tag big' }, `Needs a person: ${d.needsMe}`) : '',
    info.approval ? h('p', { class: 'approval' }, info.approval) : '',
    bar,
    result,
    strategyComponent(d.strategy),
    section(
      'Images',
      h(
        'ul',
        {},
        ...info.images.map((i) =>
          h('li', {}, h('code', {}, i.image), i.tags.length ? ` (${i.tags.join(', ')})` : ''),
        ),
      ),
    ),
    section(
      'Replicas',
      h(
        'p',
        {},
        `desired ${info.replicas.desired}, current ${info.replicas.current}, updated ${info.replicas.updated}, ready ${info.replicas.ready}, available ${info.replicas.available}`,
      ),
    ),
    d.analysis.length
      ? section('Analysis', h('div', { class: 'charts' }, ...d.analysis.map(metricChart)))
      : '',
    section('Revisions', revisions(d, now)),
    info.approvals.length
      ? section('Approvals', h('ul', {}, ...info.approvals.map((a) => h('li', {}, a))))
      : '',
    section('Conditions', conditions(d)),
    section('Events', events(d, now)),
  );
  return frag;
}

const section = (title: string, body: Node): HTMLElement =>
  h('section', { 'aria-label': title }, h('h2', {}, title), body);

function revisions(d: DetailView, now: number): HTMLElement {
  if (d.info.revisions.length === 0) return h('p', {}, 'No ReplicaSets yet.');
  return h(
    'div',
    { class: 'revisions' },
    ...d.info.revisions.map((rev) =>
      h(
        'article',
        { class: 'revision' },
        h('h3', {}, `Revision ${rev.revision ?? '?'}`),
        ...rev.replicaSets.map((rs) =>
          h(
            'div',
            { class: 'rs' },
            h(
              'p',
              {},
              h('code', {}, rs.name),
              ' ',
              ...rs.tags.map((t) => h('span', { class: `tag tag-${t}` }, t)),
              ` ${rs.available}/${rs.desired} available`,
              rs.scaleDownIn !== undefined ? `, scaled down in ${rs.scaleDownIn}s` : '',
              `, ${ago(rs.created, now)}`,
            ),
            rs.pods.length
              ? h(
                  'ul',
                  { class: 'pods' },
                  ...rs.pods.map((pod) =>
                    h(
                      'li',
                      {},
                      h('code', {}, pod.name),
                      ` ${pod.status.text}, ready ${pod.ready}/${pod.containers}, restarts ${pod.restarts}`,
                    ),
                  ),
                )
              : '',
          ),
        ),
        ...rev.analysisRuns.map((run) =>
          h(
            'div',
            { class: 'run' },
            h('p', {}, 'AnalysisRun ', h('code', {}, run.name), ` ${run.phase} ${run.counts}`),
            h(
              'ul',
              {},
              ...run.metrics.map((m) => h('li', {}, `${m.name}: ${m.phase}, latest ${m.latest}`)),
            ),
          ),
        ),
      ),
    ),
  );
}

function conditions(d: DetailView): HTMLElement {
  if (d.conditions.length === 0) return h('p', {}, 'None yet.');
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Type', 'Status', 'Reason', 'Message'].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h(
      'tbody',
      {},
      ...d.conditions.map((c) =>
        h(
          'tr',
          {},
          h('td', {}, c.type),
          h('td', {}, c.status),
          h('td', {}, c.reason),
          h('td', {}, c.message),
        ),
      ),
    ),
  );
}

function events(d: DetailView, now: number): HTMLElement {
  if (d.events.length === 0) return h('p', {}, 'No recent Events.');
  return h(
    'ul',
    { class: 'events' },
    ...d.events.map((e) =>
      h(
        'li',
        { class: e.type === 'Warning' ? 'warning' : '' },
        h('span', { class: 'when' }, ago(e.at, now)),
        ' ',
        h('strong', {}, e.reason),
        e.count > 1 ? ` (×${e.count})` : '',
        `: ${e.message}`,
      ),
    ),
  );
}
