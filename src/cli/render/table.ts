/** PURE: `kubectl stepwise list rollouts`, a kubectl-style table. */
import type { Rollout } from '../../api/rollout.ts';
import { columns } from './format.ts';
import { rolloutPhase } from './info.ts';
import { strategyView } from './strategies/index.ts';
import type { Sanitised } from '../sanitise.ts';

export interface ListOptions {
  /** -A: a NAMESPACE column first */
  allNamespaces?: boolean;
}

export const LIST_HEADERS = [
  'NAME',
  'STRATEGY',
  'STATUS',
  'STEP',
  'SET-WEIGHT',
  'READY',
  'DESIRED',
  'UP-TO-DATE',
  'AVAILABLE',
] as const;

export function rolloutRow(ro: Rollout): string[] {
  const st = ro.status ?? {};
  const desired = ro.spec.replicas ?? 1;
  const view = strategyView(ro);
  const { step, setWeight } = view.listCells(ro);
  return [
    ro.metadata.name ?? '',
    view.name,
    rolloutPhase(ro).phase,
    step,
    setWeight,
    `${st.readyReplicas ?? 0}/${desired}`,
    String(desired),
    String(st.updatedReplicas ?? 0),
    String(st.availableReplicas ?? 0),
  ];
}

/** The table, sorted by namespace then name; ends with a newline. */
export function renderRolloutList(
  rollouts: Sanitised<readonly Rollout[]>,
  opts: ListOptions = {},
): string {
  const sorted = [...rollouts].sort(
    (a, b) =>
      (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const rows: string[][] = [
    opts.allNamespaces ? ['NAMESPACE', ...LIST_HEADERS] : [...LIST_HEADERS],
    ...sorted.map((ro) =>
      opts.allNamespaces ? [ro.metadata.namespace ?? '', ...rolloutRow(ro)] : rolloutRow(ro),
    ),
  ];
  return `${columns(rows, 2).join('\n')}\n`;
}
