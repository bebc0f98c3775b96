// The "stuck canary" figure (issue 6): API writes per minute from the controller for one Rollout
// whose canary pods never become Ready. A plain rolling update (no steps, maxSurge 1,
// maxUnavailable 0) with a 10 s progress deadline: the only writes it needs are the canary's
// ReplicaSet, a status or two while it progresses, and the deadline's Degraded status and event.
// A planner that is not a fixed point here rewrote the status ~125 times a second.
import type { Rollout } from '../../src/api/index.ts';
import type { KubeHttp } from '../cluster/kube-http.ts';
import { FAULT_LABEL, NEVER_READY } from '../cluster/kwok-stages.ts';
import {
  controller,
  createNamespace,
  diffCounts,
  healthyAndPromoted,
  nowMs,
  quiet,
  requestCounts,
  rollout,
  ROLLOUTS,
  sumBy,
  waitRollout,
  watchCollection,
  WRITE_VERBS,
} from './controller-support.ts';

export const STUCK_SECONDS = 65;
const DEADLINE_SECONDS = 10;

export interface StuckCanary {
  readonly seconds: number;
  /** The controller's requests in the window, `verb resource` → count (it sees only this ns). */
  readonly requests: Record<string, number>;
  readonly writes: number;
  readonly writesPerMinute: number;
  /** Changes to the Rollout seen on a watch (status writes; nobody else writes it meanwhile). */
  readonly rolloutUpdates: number;
  /** From the template change to the first Degraded status seen; undefined if never. */
  readonly degradedAfterMs: number | undefined;
  /** stepwise_status_write_storms_total at the end. */
  readonly writeStorms: number;
}

export async function stuckCanary(http: KubeHttp, log: (l: string) => void): Promise<StuckCanary> {
  const ns = 'bench-stuck';
  await createNamespace(http, ns);
  const ctl = await controller(['--leader-elect=false', `--namespace=${ns}`]);
  try {
    await http.json(
      'POST',
      `${ROLLOUTS}/namespaces/${ns}/rollouts`,
      rollout('stuck', {
        replicas: 4,
        progressDeadlineSeconds: DEADLINE_SECONDS,
        strategy: { canary: { maxSurge: 1, maxUnavailable: 0 } },
      }),
    );
    await waitRollout(http, ns, 'stuck', healthyAndPromoted);
    await quiet(ctl);
    let rolloutUpdates = 0;
    let degradedAt: number | undefined;
    const watch = await watchCollection<Rollout>(
      http,
      `${ROLLOUTS}/namespaces/${ns}/rollouts?fieldSelector=metadata.name%3Dstuck`,
      (type, r, at) => {
        if (type === 'MODIFIED') rolloutUpdates++;
        if (r.status?.phase === 'Degraded') degradedAt ??= at;
      },
    );
    const before = requestCounts(await ctl.metrics());
    const t0 = nowMs();
    await http.json(
      'PATCH',
      `${ROLLOUTS}/namespaces/${ns}/rollouts/stuck`,
      { spec: { template: { metadata: { labels: { [FAULT_LABEL]: NEVER_READY } } } } },
      'application/merge-patch+json',
    );
    rolloutUpdates--; // the template change itself
    log(`  template changed to never-ready pods; counting for ${STUCK_SECONDS} s`);
    await new Promise((r) => setTimeout(r, STUCK_SECONDS * 1000));
    const metrics = await ctl.metrics();
    watch.close();
    const requests = diffCounts(before, requestCounts(metrics));
    const writes = sumBy(requests, WRITE_VERBS);
    const storms = /^stepwise_status_write_storms_total (\d+)$/m.exec(metrics)?.[1];
    return {
      seconds: STUCK_SECONDS,
      requests: Object.fromEntries(requests),
      writes,
      writesPerMinute: Math.round((writes * 60 * 10) / STUCK_SECONDS) / 10,
      rolloutUpdates,
      degradedAfterMs: degradedAt === undefined ? undefined : degradedAt - t0,
      writeStorms: Number(storms ?? 0),
    };
  } finally {
    await ctl.stop();
  }
}

/** Summary lines for `make bench`. */
export function formatStuckCanary(s: StuckCanary): string[] {
  const degraded =
    s.degradedAfterMs === undefined
      ? 'never Degraded'
      : `Degraded after ${(s.degradedAfterMs / 1000).toFixed(1)} s (deadline ${DEADLINE_SECONDS} s)`;
  return [
    `stuck canary ${s.seconds} s (4 replicas, no steps, maxSurge 1, pods never Ready): ` +
      `writes ${s.writes} (${s.writesPerMinute}/min; target: the deadline's handful), ` +
      `Rollout updates ${s.rolloutUpdates}, ${degraded}, write storms ${s.writeStorms}`,
    ...Object.entries(s.requests)
      .filter(([k]) => WRITE_VERBS.includes(k.split(' ')[0] ?? ''))
      .sort()
      .map(([k, v]) => `    ${k.padEnd(44)} ${v}`),
  ];
}
