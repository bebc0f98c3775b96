// The controller against the API server floor of the same run: how fast it reacts (template
// change → canary ReplicaSet, pause expiry → next write, abort → first write), how many API
// requests a canary costs, what an idle controller and a stuck canary cost (API writes), and how
// long a leader handover takes.
import type { ReplicaSet, Rollout } from '../../src/api/index.ts';
import type { KubeHttp } from '../cluster/kube-http.ts';
import {
  armRollout,
  canaryLatencies,
  clientFor,
  controller,
  createNamespace,
  diffCounts,
  healthyAndPromoted,
  installCrds,
  nowMs,
  patchStatus,
  quiet,
  requestCounts,
  rollout,
  ROLLOUTS,
  setImage,
  sumBy,
  waitRollout,
  watchCollection,
  WRITE_VERBS,
} from './controller-support.ts';
import { formatStats, machine, stats, type Benchmark } from './harness.ts';
import { formatStuckCanary, STUCK_SECONDS, stuckCanary } from './stuck-canary.ts';
import { formatFailover, leaderFailover } from './failover.ts';

const CANARY_CHANGES = 50;
const TIMER_SAMPLES = 8;
const IDLE_ROLLOUTS = 50;
const IDLE_SECONDS = 60;

const benchmark: Benchmark = {
  name: 'controller',
  description: 'controller latencies, API requests per canary, idle behaviour, leader failover',
  async run(ctx) {
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    const floorData = (await ctx.previous('control-plane')) as
      { floor?: { watchPlusWriteP50Ms?: number } } | undefined;
    const floor = floorData?.floor?.watchPlusWriteP50Ms;
    const ratio = (x: number): string => (floor ? `${(x / floor).toFixed(2)}× floor` : 'no floor');
    await installCrds(http);
    const summary: string[] = [];
    const data: Record<string, unknown> = { machine: machine(), floorWatchPlusWriteP50Ms: floor };

    ctx.log(`template change → canary ReplicaSet, ${CANARY_CHANGES} changes...`);
    const created = await canaryCreation(http);
    data.canaryReplicaSetCreatedMs = stats(created);
    summary.push(
      formatStats('template change → canary ReplicaSet created', stats(created)),
      `  ratio to the floor (watch event + write p50 ${floor?.toFixed(2)} ms): p50 ${ratio(stats(created).p50)}, p99 ${ratio(stats(created).p99)}`,
    );

    ctx.log(`pause expiry and abort, ${TIMER_SAMPLES} samples each...`);
    const timers = await timerLatencies(http);
    data.pauseExpiryToWriteMs = stats(timers.pause);
    data.abortToFirstWriteMs = stats(timers.abort);
    summary.push(
      formatStats('pause expiry → next write (target < 100 ms)', stats(timers.pause)),
      formatStats('abort → first write (target < 100 ms)', stats(timers.abort)),
      `  ratios to the floor: pause p50 ${ratio(stats(timers.pause).p50)}, abort p50 ${ratio(stats(timers.abort).p50)}`,
    );

    ctx.log('API requests for one complete 4-step canary...');
    const requests = await requestsPerCanary(http);
    data.requestsPerCanary = Object.fromEntries(requests);
    const writes = sumBy(requests, WRITE_VERBS);
    summary.push(
      `API requests for one 4-step canary (4 replicas; setWeight 25, pause 1s, setWeight 50, pause 1s):`,
      ...[...requests].sort().map(([k, v]) => `    ${k.padEnd(44)} ${v}`),
      `  writes ${writes} (${(writes / 4).toFixed(1)} per step), GETs ${sumBy(requests, ['get'])}, LISTs ${sumBy(requests, ['list'])}`,
    );

    ctx.log(`idle controller with ${IDLE_ROLLOUTS} settled Rollouts, ${IDLE_SECONDS} s...`);
    const idle = await idleController(http, (l) => ctx.log(l));
    data.idle = {
      seconds: IDLE_SECONDS,
      rollouts: IDLE_ROLLOUTS,
      requests: Object.fromEntries(idle),
    };
    summary.push(
      `idle ${IDLE_SECONDS} s after sync, ${IDLE_ROLLOUTS} Rollouts: writes ${sumBy(idle, WRITE_VERBS)}, LISTs ${sumBy(idle, ['list'])}, GETs ${sumBy(idle, ['get'])}, watches ${sumBy(idle, ['watch'])} (targets 0, 0)`,
    );

    ctx.log(`stuck canary: pods that never become Ready, ${STUCK_SECONDS} s...`);
    const stuck = await stuckCanary(http, (l) => ctx.log(l));
    data.stuckCanary = stuck;
    summary.push(...formatStuckCanary(stuck));

    ctx.log('leader failover...');
    const failover = await leaderFailover(http);
    data.leaderFailoverMs = failover;
    summary.push(...formatFailover(failover));
    http.close();
    return { summary, data };
  },
};
export default benchmark;

async function canaryCreation(http: KubeHttp): Promise<number[]> {
  const ns = 'bench-create';
  await createNamespace(http, ns);
  const ctl = await controller(['--leader-elect=false', `--namespace=${ns}`]);
  try {
    await http.json('POST', `${ROLLOUTS}/namespaces/${ns}/rollouts`, rollout('lat'));
    await waitRollout(http, ns, 'lat', healthyAndPromoted);
    return await canaryLatencies(http, ctl, { ns, name: 'lat' }, CANARY_CHANGES, 2);
  } finally {
    await ctl.stop();
  }
}

async function timerLatencies(http: KubeHttp): Promise<{ pause: number[]; abort: number[] }> {
  const ns = 'bench-timers';
  await createNamespace(http, ns);
  const ctl = await controller(['--leader-elect=false', `--namespace=${ns}`]);
  const pause: number[] = [];
  const abort: number[] = [];
  try {
    await http.json(
      'POST',
      `${ROLLOUTS}/namespaces/${ns}/rollouts`,
      rollout('p', {
        strategy: {
          canary: { steps: [{ setWeight: 50 }, { pause: { duration: '2s' } }, { pause: {} }] },
        },
      }),
    );
    await http.json(
      'POST',
      `${ROLLOUTS}/namespaces/${ns}/rollouts`,
      rollout('a', { strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } } }),
    );
    await waitRollout(http, ns, 'p', healthyAndPromoted);
    await waitRollout(http, ns, 'a', healthyAndPromoted);
    for (let i = 0; i < TIMER_SAMPLES; i++) {
      const image = `app:${i + 2}`;
      // The new spec, and a status the controller computed from it.
      const current = (r: Rollout): boolean =>
        r.spec.template?.spec?.containers[0]?.image === `registry.invalid/${image}` &&
        r.status?.observedGeneration === String(r.metadata.generation);
      // Pause expiry: from startTime + 2 s to the status write that moves past the pause.
      const inPause = await armRollout(
        http,
        ns,
        'p',
        (r) =>
          current(r) &&
          r.status?.currentStepIndex === 1 &&
          (r.status.pauseConditions?.length ?? 0) > 0,
      );
      const past = await armRollout(
        http,
        ns,
        'p',
        (r) => current(r) && r.status?.currentStepIndex === 2,
      );
      await setImage(http, ns, 'p', image);
      const start = Date.parse(
        (await inPause.done).rollout.status?.pauseConditions?.[0]?.startTime ?? '',
      );
      pause.push((await past.done).at - (start + 2000));
      // Abort: from just before the request to the controller's first write about it.
      const paused = await armRollout(
        http,
        ns,
        'a',
        (r) =>
          current(r) &&
          r.status?.phase === 'Paused' &&
          r.status.observedGeneration === String(r.metadata.generation),
      );
      await setImage(http, ns, 'a', image);
      await paused.done;
      // The first write of the reaction: the stable scaling back up (or the status, if first).
      const reacted = await armRollout(http, ns, 'a', (r) => r.status?.abortedAt !== undefined);
      let firstRsWrite: number | undefined;
      let t0 = Infinity;
      const rsWatch = await watchCollection<ReplicaSet>(
        http,
        `/apis/apps/v1/namespaces/${ns}/replicasets`,
        (type, _rs, at) => {
          if (type === 'MODIFIED' && at > t0) firstRsWrite ??= at;
        },
      );
      t0 = nowMs();
      await patchStatus(http, ns, 'a', { abort: true });
      const statusAt = (await reacted.done).at;
      rsWatch.close();
      abort.push(Math.min(statusAt, firstRsWrite ?? Infinity) - t0);
    }
    return { pause, abort };
  } finally {
    await ctl.stop();
  }
}

async function requestsPerCanary(http: KubeHttp): Promise<Map<string, number>> {
  const ns = 'bench-requests';
  await createNamespace(http, ns);
  const ctl = await controller(['--leader-elect=false', `--namespace=${ns}`]);
  try {
    await http.json(
      'POST',
      `${ROLLOUTS}/namespaces/${ns}/rollouts`,
      rollout('r', {
        replicas: 4,
        strategy: {
          canary: {
            steps: [
              { setWeight: 25 },
              { pause: { duration: '1s' } },
              { setWeight: 50 },
              { pause: { duration: '1s' } },
            ],
          },
        },
      }),
    );
    await waitRollout(http, ns, 'r', healthyAndPromoted);
    await quiet(ctl);
    const before = requestCounts(await ctl.metrics());
    const done = await armRollout(
      http,
      ns,
      'r',
      (r) => healthyAndPromoted(r) && r.metadata.generation === 2,
    );
    await setImage(http, ns, 'r', 'app:2');
    await done.done;
    await quiet(ctl);
    return diffCounts(before, requestCounts(await ctl.metrics()));
  } finally {
    await ctl.stop();
  }
}

async function idleController(
  http: KubeHttp,
  log: (l: string) => void,
): Promise<Map<string, number>> {
  const ns = 'bench-idle';
  await createNamespace(http, ns);
  const ctl = await controller(['--leader-elect=false', `--namespace=${ns}`]);
  try {
    for (let i = 0; i < IDLE_ROLLOUTS; i++) {
      await http.json('POST', `${ROLLOUTS}/namespaces/${ns}/rollouts`, rollout(`idle-${i}`));
    }
    for (let i = 0; i < IDLE_ROLLOUTS; i++)
      await waitRollout(http, ns, `idle-${i}`, healthyAndPromoted);
    await quiet(ctl);
    log(`  ${IDLE_ROLLOUTS} Rollouts settled; counting for ${IDLE_SECONDS} s`);
    const before = requestCounts(await ctl.metrics());
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    return diffCounts(before, requestCounts(await ctl.metrics()));
  } finally {
    await ctl.stop();
  }
}
