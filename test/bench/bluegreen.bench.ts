// Blue-green against the API server floor of the same run (issue 21): from the new ReplicaSet
// fully available to the active Service switched to it (a watch event, then one write: the
// floor's own shape), template change → new ReplicaSet, and the API writes one complete update
// costs, each beside a canary measured the same way on the same cluster and controller (no steps;
// its stable Service moves ahead of the old pods draining, argo-rollouts#1760, so its "available
// → switch" comes out negative: the canary's side is for the writes and change → new RS), plus the
// 4-step canary of the controller bench, counted as that bench counts it.
//
// Where the time goes (traced per pass, 2026-12-06, 120 samples): at the median 4.8 ms, the
// controller's own share is ~0.5 ms (event → pass → plan → request sent); the Service apply and
// its watch event are the rest. The slowest 10 % come from the 2-core machine, not the pass: the
// controller receiving the ReplicaSet event late (descheduled: 10-40 ms timer gaps with 2-5 ms
// of its own CPU, both cores 100 % busy while the control plane reacts to the pods turning
// Ready), the API server delivering the Service's event late, and a progress status write still
// in flight when the last pod became available. At n=100 the p99 is the second-largest sample,
// so one such stall decides it (16-51 ms over six runs with other work on the machine); the p95
// and the floor of the same write on the same cluster (service-switch-floor.ts) are the steadier
// comparisons. On a quiet machine (2026-12-07, two runs of BENCH_BLUEGREEN_SAMPLES=100): p50 7.6
// and 8.2 ms, p99 18.5 and 19.6 ms, 1.26× and 1.08× the floor's p99 (1.82× and 1.86× the bench's
// own Service switch).
import type { KubeHttp } from '../cluster/kube-http.ts';
import { serviceManifest } from '../fixtures/traffic.ts';
import type { ControllerProcess } from '../e2e/support/controller.ts';
import {
  clientFor,
  controller,
  createNamespace,
  diffCounts,
  healthyAndPromoted,
  installCrds,
  quiet,
  requestCounts,
  rollout,
  ROLLOUTS,
  setImage,
  sumBy,
  waitRollout,
  WRITE_VERBS,
} from './controller-support.ts';
import { formatStats, machine, stats, type Benchmark, type Stats } from './harness.ts';
import { measureServiceSwitch } from './service-switch-floor.ts';
import { SwitchTracker } from './switch-tracker.ts';

const NS = 'bench-bluegreen';
const REPLICAS = 4;
/** Updates per strategy; BENCH_BLUEGREEN_SAMPLES for a quicker look. */
const SAMPLES = Number(process.env['BENCH_BLUEGREEN_SAMPLES'] ?? 30);
/** Tries of one sample whose watches keep being resumed before the bench gives up. */
const MAX_ATTEMPTS = 3;
/** How long a stage may trail the settled Rollout on its own watch. */
const STAGE_WAIT_MS = 10_000;
/** Service selector switches made by the bench itself, for the floor of that one write. */
const SWITCH_FLOOR_SAMPLES = Number(process.env['BENCH_SWITCH_FLOOR_SAMPLES'] ?? 200);

interface Subject {
  readonly label: string;
  readonly name: string;
  /** The Service that moves to the new version when its pods are all available. */
  readonly service: string;
}
const BLUE_GREEN: Subject = { label: 'blue-green', name: 'bg', service: 'bg-active' };
const CANARY: Subject = { label: 'canary', name: 'cn', service: 'cn-stable' };

/** What the control-plane bench wrote (.stepwise/bench/control-plane.json) that is used here. */
interface ControlPlaneBenchData {
  readonly floor?: {
    readonly watchPlusWriteP50Ms?: number;
    readonly watchPlusWriteP99Ms?: number;
    readonly watchEventFromRequestStart?: Partial<Stats>;
    readonly createConfigMap?: Partial<Stats>;
  };
}

/** What the controller bench wrote (.stepwise/bench/controller.json) that is compared here. */
interface ControllerBenchData {
  readonly canaryReplicaSetCreatedMs?: Stats;
  readonly requestsPerCanary?: Record<string, number>;
}

interface Samples {
  readonly created: number[];
  readonly availableToSwitch: number[];
  readonly writes: number[];
  /** Each update's writes by verb and resource, to find the odd one out. */
  readonly perUpdate: Record<string, number>[];
  /** Requests of every verb and resource over all updates, for the breakdown. */
  readonly counts: Map<string, number>;
  /** Each update's stage times (epoch ms on the bench's clock), to find an outlier in a trace. */
  readonly raw: Record<string, unknown>[];
}

const benchmark: Benchmark = {
  name: 'bluegreen',
  description:
    'blue-green: new ReplicaSet available → active Service switched, writes per update; beside a canary',
  async run(ctx) {
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    const floorData = (await ctx.previous('control-plane')) as ControlPlaneBenchData | undefined;
    const floor = floorData?.floor?.watchPlusWriteP50Ms;
    const floorP99 = floorData?.floor?.watchPlusWriteP99Ms;
    const f = floorData?.floor;
    // Recorded before the floor kept a p95 (older control-plane.json): none.
    const floorP95 =
      f?.watchEventFromRequestStart?.p95 !== undefined && f.createConfigMap?.p95 !== undefined
        ? f.watchEventFromRequestStart.p95 + f.createConfigMap.p95
        : undefined;
    // Each percentile against the floor's own: a p99 carries the API server's tail too.
    const times = (x: number, of: number | undefined): string =>
      of ? `${(x / of).toFixed(2)}×` : 'n/a';
    const ratio: Ratios = {
      p50: (x) => times(x, floor),
      p95: (x) => times(x, floorP95),
      p99: (x) => times(x, floorP99),
    };
    // make bench runs this one after the controller bench: its canary figures are this run's.
    const canaryBench = (await ctx.previous('controller')) as ControllerBenchData | undefined;
    await installCrds(http);
    await createNamespace(http, NS);
    for (const name of ['bg-active', 'bg-preview', 'cn-stable', 'cn-canary']) {
      await http.json(
        'POST',
        `/api/v1/namespaces/${NS}/services`,
        serviceManifest(name, name.slice(0, 2)),
      );
    }
    const ctl = await controller(['--leader-elect=false', `--namespace=${NS}`]);
    const tracker = await SwitchTracker.open(http, NS, (line) => ctx.log(line));
    try {
      await createRollouts(http);
      const results = new Map<Subject, Samples>();
      for (const s of [BLUE_GREEN, CANARY]) {
        results.set(s, {
          created: [],
          availableToSwitch: [],
          writes: [],
          perUpdate: [],
          counts: new Map(),
          raw: [],
        });
      }
      ctx.log(
        `${SAMPLES} updates each of a blue-green and a canary Rollout (${REPLICAS} pods), alternating...`,
      );
      let image = 2;
      for (let i = 0; i < SAMPLES; i++) {
        for (const subject of [BLUE_GREEN, CANARY]) {
          for (let attempt = 1; ; attempt++) {
            const tag = `app:${image++}`;
            if (await oneUpdate(http, ctl, tracker, subject, tag, results.get(subject)!)) break;
            if (attempt === MAX_ATTEMPTS) {
              throw new Error(
                `${subject.label}: ${attempt} updates in a row spanned a resumed watch`,
              );
            }
            ctx.log(`  ${subject.label} update to ${tag} spanned a resumed watch: repeated`);
          }
        }
        if ((i + 1) % 10 === 0) ctx.log(`  ${i + 1}/${SAMPLES}`);
      }
      ctx.log(`${SWITCH_FLOOR_SAMPLES} Service selector switches by the bench (its own floor)...`);
      const switchFloor = await measureServiceSwitch(http, NS, ['bg', 'cn'], SWITCH_FLOOR_SAMPLES);
      ctx.log('one 4-step canary, counted as the controller bench counts it...');
      const fourStep = await fourStepCanaryWrites(http, ctl);

      const bg = results.get(BLUE_GREEN)!;
      const cn = results.get(CANARY)!;
      const switchBg = stats(bg.availableToSwitch);
      const switchCn = stats(cn.availableToSwitch);
      const createdBg = stats(bg.created);
      const createdCn = stats(cn.created);
      const writesBg = stats(bg.writes);
      const writesCn = stats(cn.writes);
      const floorText =
        floor && floorP99
          ? `p50 ${floor.toFixed(2)} ms, p95 ${floorP95?.toFixed(2) ?? 'n/a'} ms, p99 ${floorP99.toFixed(2)} ms`
          : 'not measured in this run';
      const summary = [
        formatStats('new RS fully available → active Service switched', switchBg),
        `  floor of this run (watch event + write): ${floorText}; ratio p50 ${ratio.p50(switchBg.p50)}, p95 ${ratio.p95(switchBg.p95)}, p99 ${ratio.p99(switchBg.p99)} (target ≤ 2×)`,
        formatStats('floor: Service selector apply → its event', switchFloor.applyToEvent),
        `  the write a switch makes (4 Ready pods behind each selector), by the bench; ratio p50 ${times(switchBg.p50, switchFloor.applyToEvent.p50)}, p95 ${times(switchBg.p95, switchFloor.applyToEvent.p95)}, p99 ${times(switchBg.p99, switchFloor.applyToEvent.p99)}`,
        formatStats('template change → new ReplicaSet (blue-green)', createdBg),
        `writes per blue-green update (${REPLICAS} pods, scaleDownDelaySeconds 1, to the old RS at 0): p50 ${writesBg.p50}, min ${writesBg.min}, max ${writesBg.max}`,
        `  by verb and resource, per update: ${breakdown(bg.counts, SAMPLES)}`,
        formatStats('new RS fully available → stable Service switched (canary)', switchCn),
        ...(switchCn.p50 < 0
          ? [
              '  negative: a basic canary moves its stable Service ahead of the old pods draining (argo-rollouts#1760), before its last new pod is available; not a latency',
            ]
          : []),
        formatStats('template change → new ReplicaSet (canary)', createdCn),
        `writes per canary update (${REPLICAS} pods, no steps): p50 ${writesCn.p50}, min ${writesCn.min}, max ${writesCn.max}`,
        `  by verb and resource, per update: ${breakdown(cn.counts, SAMPLES)}`,
        `writes for the controller bench's 4-step canary (4 pods; 25, 1s, 50, 1s), counted here: ${sumBy(fourStep, WRITE_VERBS)}`,
        'side by side (p50 / p99 ms; writes p50):',
        `  ${''.padEnd(12)}${'available → switch'.padEnd(24)}${'ratio to floor'.padEnd(18)}${'change → new RS'.padEnd(22)}writes`,
        sideBySide('blue-green', switchBg, createdBg, writesBg, ratio),
        sideBySide('canary', switchCn, createdCn, writesCn, ratio),
        controllerBenchLine(canaryBench, createdBg, writesBg, sumBy(fourStep, WRITE_VERBS)),
      ];
      return {
        summary,
        data: {
          machine: machine(),
          floorWatchPlusWriteP50Ms: floor,
          floorWatchPlusWriteP99Ms: floorP99,
          serviceSwitchFloor: switchFloor,
          replicas: REPLICAS,
          blueGreen: {
            availableToActiveSwitchMs: switchBg,
            templateChangeToReplicaSetMs: createdBg,
            writesPerUpdate: writesBg,
            requestsOverAllUpdates: Object.fromEntries(bg.counts),
            writesByUpdate: bg.perUpdate,
            raw: bg.raw,
          },
          canary: {
            availableToStableSwitchMs: switchCn,
            templateChangeToReplicaSetMs: createdCn,
            writesPerUpdate: writesCn,
            requestsOverAllUpdates: Object.fromEntries(cn.counts),
            writesByUpdate: cn.perUpdate,
            raw: cn.raw,
          },
          fourStepCanaryRequests: Object.fromEntries(fourStep),
        },
      };
    } finally {
      tracker.close();
      await ctl.stop();
      http.close();
    }
  },
};
export default benchmark;

async function createRollouts(http: KubeHttp): Promise<void> {
  const blueGreen = rollout(BLUE_GREEN.name, {
    replicas: REPLICAS,
    strategy: {
      blueGreen: {
        activeService: 'bg-active',
        previewService: 'bg-preview',
        scaleDownDelaySeconds: 1,
      },
    },
  });
  const canary = rollout(CANARY.name, {
    replicas: REPLICAS,
    strategy: { canary: { stableService: 'cn-stable', canaryService: 'cn-canary' } },
  });
  for (const r of [blueGreen, canary]) {
    await http.json('POST', `${ROLLOUTS}/namespaces/${NS}/rollouts`, r);
    await waitRollout(http, NS, r.metadata.name ?? '', healthyAndPromoted);
  }
}

/**
 * One template change on a quiet controller, until the new version is stable and every older
 * ReplicaSet is at 0; the controller's requests in between are the update's. False (nothing
 * recorded) when a watch of the tracker was resumed meanwhile: the arrival times are not the
 * changes' then, and the caller repeats the sample.
 */
async function oneUpdate(
  http: KubeHttp,
  ctl: ControllerProcess,
  tracker: SwitchTracker,
  subject: Subject,
  image: string,
  into: Samples,
): Promise<boolean> {
  await quiet(ctl);
  const gaps = tracker.gaps;
  const before = requestCounts(await ctl.metrics());
  const settled = tracker.rolloutUntil(
    subject.name,
    (r) =>
      healthyAndPromoted(r) &&
      r.spec.template?.spec?.containers[0]?.image === `registry.invalid/${image}`,
  );
  const t0 = performance.timeOrigin + performance.now();
  await setImage(http, NS, subject.name, image);
  const hash = (await settled).status?.currentPodHash ?? '';
  const rsName = `${subject.name}-${hash}`;
  await tracker.until(`${subject.name}'s older ReplicaSets at 0`, () =>
    tracker.onlyScaledUp(subject.name, rsName),
  );
  // Each kind arrives on its own watch: the Rollout's settled status can come before the
  // Service's switch that preceded it on the server. Wait for every stage, not the first look.
  const stages = (): (number | undefined)[] => [
    tracker.createdAt(rsName),
    tracker.fullyAvailableAt(rsName, REPLICAS),
    tracker.switchedAt(subject.service, hash),
  ];
  const seen = await tracker
    .until(`${image}'s stages`, () => stages().every((t) => t !== undefined), STAGE_WAIT_MS)
    .then(
      () => true,
      (err: unknown) => {
        // A watch that could not be resumed is its own error; a stage not seen is reported below.
        if (err instanceof Error && err.message.startsWith('timed out')) return false;
        throw err;
      },
    );
  if (tracker.gaps !== gaps) return false;
  const [created, available, switched] = stages();
  if (!seen || created === undefined || available === undefined || switched === undefined) {
    const missing = [
      created === undefined ? `ReplicaSet ${rsName} created` : '',
      available === undefined ? `ReplicaSet ${rsName} with all ${REPLICAS} pods available` : '',
      switched === undefined
        ? `Service ${subject.service} selecting ${hash} (last seen selecting ${tracker.selects(subject.service) || 'no hash'})`
        : '',
    ].filter((m) => m !== '');
    throw new Error(
      `${subject.label} update to ${image}: stage not seen on the watches within ${STAGE_WAIT_MS / 1000} s of the Rollout settling: ${missing.join('; ')}`,
    );
  }
  into.created.push(created - t0);
  into.availableToSwitch.push(switched - available);
  into.raw.push({ image, rsName, t0, created, available, switched, ms: switched - available });
  await quiet(ctl);
  const spent = diffCounts(before, requestCounts(await ctl.metrics()));
  into.writes.push(sumBy(spent, WRITE_VERBS));
  into.perUpdate.push(
    Object.fromEntries([...spent].filter(([k]) => WRITE_VERBS.includes(k.split(' ')[0] ?? ''))),
  );
  for (const [k, v] of spent) into.counts.set(k, (into.counts.get(k) ?? 0) + v);
  return true;
}

async function fourStepCanaryWrites(
  http: KubeHttp,
  ctl: ControllerProcess,
): Promise<Map<string, number>> {
  const name = 'steps';
  await http.json(
    'POST',
    `${ROLLOUTS}/namespaces/${NS}/rollouts`,
    rollout(name, {
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
  await waitRollout(http, NS, name, healthyAndPromoted);
  await quiet(ctl);
  const before = requestCounts(await ctl.metrics());
  await setImage(http, NS, name, 'app:2');
  await waitRollout(http, NS, name, (r) => healthyAndPromoted(r) && r.metadata.generation === 2);
  await quiet(ctl);
  return diffCounts(before, requestCounts(await ctl.metrics()));
}

/** Writes only, averaged per update: "apply replicasets 3.0, create events 4.0, ...". */
function breakdown(counts: Map<string, number>, updates: number): string {
  return [...counts]
    .filter(([k]) => WRITE_VERBS.includes(k.split(' ')[0] ?? ''))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${(v / updates).toFixed(1)}`)
    .join(', ');
}

/** A figure against the floor of the same percentile, as text. */
interface Ratios {
  readonly p50: (ms: number) => string;
  readonly p95: (ms: number) => string;
  readonly p99: (ms: number) => string;
}

function sideBySide(
  label: string,
  toSwitch: Stats,
  created: Stats,
  writes: Stats,
  ratio: Ratios,
): string {
  const pair = (s: Stats): string => `${s.p50.toFixed(1)} / ${s.p99.toFixed(1)}`;
  // Ahead of the pods (the canary's stable Service, see above): no ratio to a latency floor.
  const ratios =
    toSwitch.p50 < 0 ? 'ahead, n/a' : `${ratio.p50(toSwitch.p50)} / ${ratio.p99(toSwitch.p99)}`;
  return (
    `  ${label.padEnd(12)}${pair(toSwitch).padEnd(24)}${ratios.padEnd(18)}` +
    `${pair(created).padEnd(22)}${writes.p50}`
  );
}

/** The blue-green figures beside the controller bench's canary ones (`make bench` runs it first). */
function controllerBenchLine(
  canary: ControllerBenchData | undefined,
  created: Stats,
  writes: Stats,
  fourStepWrites: number,
): string {
  const c = canary?.canaryReplicaSetCreatedMs;
  if (c === undefined) return 'controller bench: no figures on record (make bench runs it first)';
  const requests = new Map(Object.entries(canary?.requestsPerCanary ?? {}));
  return (
    `beside the controller bench's canary: change → new RS p50 ${created.p50.toFixed(1)} ms ` +
    `(canary ${c.p50.toFixed(1)}), p99 ${created.p99.toFixed(1)} (canary ${c.p99.toFixed(1)}); writes ` +
    `per update ${writes.p50} (its 4-step canary ${sumBy(requests, WRITE_VERBS)}, here ${fourStepWrites})`
  );
}
