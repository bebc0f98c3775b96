/**
 * PURE: `kubectl stepwise get rollout` output, a header and a tree like Argo Rollouts':
 *   ⟳ web  Rollout → # revision:2 → ⧉ web-6cf78c66c5  ReplicaSet → □ web-6cf78c66c5-dtgwx  Pod
 */
import { noColor, type Paint } from './color.ts';
import { age, columns } from './format.ts';
import { ICON, KIND_ICON, TONE, type IconHealth } from './icons.ts';
import { ANALYSIS_RUN_ICON, type AnalysisRunInfo } from './analysis.ts';
import type { ReplicaSetInfo, RolloutInfo } from './info.ts';

export interface RenderOptions {
  paint?: Paint;
  /** ms since the epoch, for ages and scale-down delays */
  now: number;
  /** false: leave the AGE column out (to compare two renders for a real change) */
  showAge?: boolean;
}

const status = (paint: Paint, health: IconHealth, text: string): string =>
  paint(`${ICON[health]} ${text}`, TONE[health]);

export function renderHeader(info: RolloutInfo, paint: Paint = noColor): string {
  const lines: [string, string][] = [
    ['Name:', info.name],
    ['Namespace:', info.namespace],
    ['Status:', status(paint, info.phase, info.phase)],
  ];
  if (info.message) lines.push(['Message:', info.message]);
  lines.push(['Strategy:', info.strategy]);
  for (const [label, value] of info.strategyLines) lines.push([`  ${label}`, value]);
  if (info.workload !== undefined) lines.push(['Workload:', info.workload]);
  const images = info.images.map((i) =>
    i.tags.length ? `${i.image} (${i.tags.join(', ')})` : i.image,
  );
  lines.push(['Images:', images[0] ?? '<none>']);
  for (const image of images.slice(1)) lines.push(['', image]);
  lines.push(['Replicas:', '']);
  const r = info.replicas;
  lines.push(['  Desired:', String(r.desired)]);
  lines.push(['  Current:', String(r.current)]);
  lines.push(['  Updated:', String(r.updated)]);
  lines.push(['  Ready:', String(r.ready)]);
  lines.push(['  Available:', String(r.available)]);
  if (info.approval !== undefined) lines.push(['Awaiting:', info.approval]);
  if (info.approvals.length > 0) {
    lines.push(['Approvals:', info.approvals[0] ?? '']);
    for (const line of info.approvals.slice(1)) lines.push(['', line]);
  }
  const width = 17;
  return lines.map(([k, v]) => (v ? k.padEnd(width) + v : k)).join('\n');
}

interface Node {
  label: string;
  kind: string;
  status: string;
  age: string;
  info: string;
  children: Node[];
}

function rsNode(rs: ReplicaSetInfo, paint: Paint, now: number): Node {
  const info = [...rs.tags];
  if (rs.scaleDownIn !== undefined) {
    info.push(rs.scaleDownIn > 0 ? `delay:${rs.scaleDownIn}s` : 'delay:passed');
  }
  return {
    label: `${KIND_ICON.ReplicaSet} ${rs.name}`,
    kind: 'ReplicaSet',
    status: status(paint, rs.health, rs.health),
    age: age(rs.created, now),
    info: info.join(','),
    children: rs.pods.map((p) => ({
      label: `${KIND_ICON.Pod} ${p.name}`,
      kind: 'Pod',
      status: status(paint, p.status.health, p.status.text),
      age: age(p.created, now),
      info: `ready:${p.ready}/${p.containers} restarts:${p.restarts}`,
      children: [],
    })),
  };
}

function runNode(run: AnalysisRunInfo, paint: Paint, now: number): Node {
  return {
    label: `${ANALYSIS_RUN_ICON} ${run.name}`,
    kind: 'AnalysisRun',
    status: status(paint, run.health, run.phase),
    age: age(run.created, now),
    info: run.counts,
    children: run.metrics.map((m) => ({
      label: m.dryRun ? `${m.name} (dry run)` : m.name,
      kind: 'Metric',
      status: status(paint, m.health, m.phase),
      age: '',
      info: m.latest,
      children: [],
    })),
  };
}

export function renderTree(info: RolloutInfo, opts: RenderOptions): string {
  const paint = opts.paint ?? noColor;
  const root: Node = {
    label: `${KIND_ICON.Rollout} ${info.name}`,
    kind: 'Rollout',
    status: status(paint, info.phase, info.phase),
    age: age(info.created, opts.now),
    info: '',
    children: info.revisions.map((rev) => ({
      label: `${KIND_ICON.Revision} revision:${rev.revision ?? '?'}`,
      kind: '',
      status: '',
      age: '',
      info: '',
      children: [
        ...rev.replicaSets.map((rs) => rsNode(rs, paint, opts.now)),
        ...rev.analysisRuns.map((run) => runNode(run, paint, opts.now)),
      ],
    })),
  };
  const showAge = opts.showAge ?? true;
  const rows: string[][] = [
    showAge ? ['NAME', 'KIND', 'STATUS', 'AGE', 'INFO'] : ['NAME', 'KIND', 'STATUS', 'INFO'],
  ];
  const walk = (node: Node, prefix: string, connector: string): void => {
    const cells = [prefix + connector + node.label, node.kind, node.status];
    if (showAge) cells.push(node.age);
    cells.push(node.info);
    rows.push(cells);
    const childPrefix = prefix + (connector === '' ? '' : connector === '├──' ? '│  ' : '   ');
    node.children.forEach((child, i) => {
      walk(child, childPrefix, i === node.children.length - 1 ? '└──' : '├──');
    });
  };
  walk(root, '', '');
  return columns(rows).join('\n');
}

/** Header, a blank line, the tree; ends with a newline. */
export const renderRollout = (info: RolloutInfo, opts: RenderOptions): string =>
  `${renderHeader(info, opts.paint)}\n\n${renderTree(info, opts)}\n`;
