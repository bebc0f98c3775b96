/**
 * One metric's chart, drawn as SVG by hand (no chart library: a line, points and two dashed
 * lines are all there is): values over time, failed and error points marked (a larger point and
 * the word in its title, never colour alone), the success and failure thresholds as labelled
 * lines, then the query, the conditions and the last value as text.
 */
import type { MetricChart } from '../model/wire.ts';
import { badge, h } from './dom.ts';

const SVG = 'http://www.w3.org/2000/svg';
const W = 520;
const H = 170;
const PAD = { left: 52, right: 12, top: 10, bottom: 22 };

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

const short = (n: number): string =>
  Math.abs(n) >= 1000 || n === 0 ? n.toPrecision(3) : String(Number(n.toPrecision(3)));

export function metricChart(c: MetricChart): HTMLElement {
  const values = [...c.points.map((p) => p.value), ...c.thresholds.map((t) => t.value)];
  const failed = c.points.filter((p) => p.phase === 'Failed' || p.phase === 'Error').length;
  const label = `${c.metric}: ${c.points.length} values charted${failed ? `, ${failed} failed` : ''}${c.last !== undefined ? `, last ${c.last}` : ''}`;
  const figure = h(
    'figure',
    { class: 'chart', 'data-metric': c.metric },
    h('figcaption', {}, h('strong', {}, c.metric), ' ', badge(c.phase), ` ${c.run}`),
  );
  if (values.length === 0) {
    figure.append(h('p', {}, 'No numeric values yet.'));
  } else {
    let lo = Math.min(...values);
    let hi = Math.max(...values);
    const margin = hi === lo ? Math.abs(hi) * 0.1 || 1 : (hi - lo) * 0.1;
    lo -= margin;
    hi += margin;
    const t0 = Math.min(...c.points.map((p) => p.at));
    const t1 = Math.max(...c.points.map((p) => p.at));
    const x = (at: number): number =>
      PAD.left + (t1 === t0 ? 0.5 : (at - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
    const y = (v: number): number => PAD.top + ((hi - v) / (hi - lo)) * (H - PAD.top - PAD.bottom);
    const chart = svg('svg', {
      viewBox: `0 0 ${W} ${H}`,
      role: 'img',
      'aria-label': label,
      class: 'plot',
    });
    chart.append(
      svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: 'axis' }),
      svg('line', {
        x1: PAD.left,
        y1: H - PAD.bottom,
        x2: W - PAD.right,
        y2: H - PAD.bottom,
        class: 'axis',
      }),
      svg('text', { x: PAD.left - 4, y: PAD.top + 8, class: 'tick end' }, short(hi)),
      svg('text', { x: PAD.left - 4, y: H - PAD.bottom, class: 'tick end' }, short(lo)),
    );
    for (const t of c.thresholds) {
      chart.append(
        svg('line', {
          x1: PAD.left,
          x2: W - PAD.right,
          y1: y(t.value),
          y2: y(t.value),
          class: `threshold ${t.kind}`,
        }),
        svg(
          'text',
          { x: W - PAD.right, y: y(t.value) - 3, class: `tick end ${t.kind}` },
          `${t.kind}: ${t.op} ${t.value}`,
        ),
      );
    }
    if (c.points.length > 1) {
      chart.append(
        svg('polyline', {
          points: c.points.map((p) => `${x(p.at)},${y(p.value)}`).join(' '),
          class: 'values',
        }),
      );
    }
    for (const p of c.points) {
      const bad = p.phase === 'Failed' || p.phase === 'Error';
      const dot = svg('circle', {
        cx: x(p.at),
        cy: y(p.value),
        r: bad ? 5 : 3,
        class: `point ${p.phase.toLowerCase()}`,
      });
      dot.append(
        svg('title', {}, `${p.value} ${p.phase} at ${new Date(p.at).toLocaleTimeString()}`),
      );
      chart.append(dot);
    }
    figure.append(chart);
  }
  figure.append(
    h(
      'dl',
      { class: 'lines' },
      ...(c.query !== undefined ? [h('dt', {}, 'Query'), h('dd', {}, h('code', {}, c.query))] : []),
      ...c.conditions.flatMap((cond) => [
        h('dt', {}, 'Condition'),
        h('dd', {}, h('code', {}, cond)),
      ]),
      h('dt', {}, 'Last value'),
      h('dd', { class: 'last' }, c.last ?? '—'),
      h('dt', {}, 'Measurements'),
      h('dd', {}, `${c.measurements}${failed ? `, ${failed} failed or in error` : ''}`),
    ),
  );
  return figure;
}
