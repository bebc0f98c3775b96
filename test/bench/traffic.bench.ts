// Traffic routing against the real API server: how long a GitOps-style forced re-apply that
// resets an HTTPRoute's weights stays live before the controller has put them back (seen by a
// watcher: reset event → restore event), next to the API server floor of the same run, and the
// API writes one complete traffic-routed canary costs.
import { installRouterCrds } from '../cluster/router-crds.ts';
import type { KubeHttp } from '../cluster/kube-http.ts';
import type { HttpRoute } from '../fixtures/traffic.ts';
import { httpRouteManifest, routeWeights, serviceManifest } from '../fixtures/traffic.ts';
import {
  clientFor,
  controller,
  createNamespace,
  diffCounts,
  healthyAndPromoted,
  installCrds,
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

const RESETS = 30;
const NS = 'bench-traffic';
const ROUTES = `/apis/gateway.networking.k8s.io/v1/namespaces/${NS}/httproutes`;

function applyAs(http: KubeHttp, manager: string, path: string, body: object): Promise<unknown> {
  return http.json(
    'PATCH',
    `${path}?fieldManager=${manager}&force=true`,
    body,
    'application/apply-patch+yaml',
  );
}

const paused = (index: number) => (r: { status?: { phase?: string; currentStepIndex?: number } }) =>
  r.status?.phase === 'Paused' && r.status.currentStepIndex === index;

const benchmark: Benchmark = {
  name: 'traffic',
  description:
    'HTTPRoute weights reset by a forced GitOps apply → restored; writes per routed canary',
  async run(ctx) {
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    await installCrds(http);
    await installRouterCrds('standard');
    const floorData = (await ctx.previous('control-plane')) as
      { floor?: { watchPlusWriteP50Ms?: number } } | undefined;
    const floor = floorData?.floor?.watchPlusWriteP50Ms;
    const ctl = await controller(['--leader-elect=false']);
    try {
      await createNamespace(http, NS);
      for (const name of ['web-stable', 'web-canary']) {
        await applyAs(
          http,
          'argocd-controller',
          `/api/v1/namespaces/${NS}/services/${name}`,
          serviceManifest(name, 'web'),
        );
      }
      await applyAs(http, 'argocd-controller', `${ROUTES}/web`, httpRouteManifest('web', 100, 0));
      await http.json(
        'POST',
        `${ROLLOUTS}/namespaces/${NS}/rollouts`,
        rollout('web', {
          replicas: 2,
          strategy: {
            canary: {
              canaryService: 'web-canary',
              stableService: 'web-stable',
              scaleDownDelaySeconds: 0,
              trafficRouting: { gatewayAPI: { httpRoute: 'web' } },
              steps: [{ setWeight: 30 }, { pause: {} }, { setWeight: 60 }, { pause: {} }],
            },
          },
        }),
      );
      await waitRollout(http, NS, 'web', healthyAndPromoted);
      await quiet(ctl);

      ctx.log('one complete traffic-routed canary (setWeight 30, pause, setWeight 60, pause)...');
      const before = requestCounts(await ctl.metrics());
      await setImage(http, NS, 'web', 'app:2');
      await waitRollout(http, NS, 'web', paused(1));
      await patchStatus(http, NS, 'web', { pauseConditions: null });
      await waitRollout(http, NS, 'web', paused(3));
      ctx.log(`${RESETS} forced resets of the route at 60%...`);
      const restore = await resets(http);
      await patchStatus(http, NS, 'web', { pauseConditions: null });
      await waitRollout(http, NS, 'web', healthyAndPromoted);
      await quiet(ctl);
      const spent = diffCounts(before, requestCounts(await ctl.metrics()));
      // The resets' own restores are counted apart: one route apply each.
      const routeWrites = [...spent]
        .filter(([k]) => /^(apply|patch) httproutes/.test(k))
        .reduce((n, [, v]) => n + v, 0);
      const writes = sumBy(spent, WRITE_VERBS) - RESETS;
      const s = stats(restore);
      return {
        summary: [
          formatStats('forced reset of the weights → restored (watch)', s),
          floor
            ? `  ratio to the floor (watch event + write p50 ${floor.toFixed(2)} ms): p50 ${(s.p50 / floor).toFixed(2)}×, p99 ${(s.p99 / floor).toFixed(2)}×`
            : '  no control-plane floor in this run',
          `API writes for one complete routed canary (4 steps, 2 replicas): ${writes} (HTTPRoute applies ${routeWrites - RESETS})`,
          `  by verb and resource: ${[...spent]
            .filter(([k]) => WRITE_VERBS.includes(k.split(' ')[0] ?? ''))
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        ],
        data: {
          machine: machine(),
          restoreMs: s,
          writesPerCanary: writes,
          counts: Object.fromEntries(spent),
          floor,
        },
      };
    } finally {
      await ctl.kill();
    }
  },
};

/** Resets the route to Git's 100/0 as Flux would, and times how long until weights are back. */
async function resets(http: KubeHttp): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < RESETS; i++) {
    let resetAt = 0;
    let restoredAt = (_at: number): void => undefined;
    const restored = new Promise<number>((resolve) => (restoredAt = resolve));
    // Open before the reset, so both events are seen.
    const watch = await watchCollection<HttpRoute>(
      http,
      `${ROUTES}?fieldSelector=metadata.name%3Dweb`,
      (type, route, at) => {
        if (type !== 'MODIFIED') return;
        const [, canary] = routeWeights(route);
        if (canary === 0 && resetAt === 0) resetAt = at;
        if (canary === 60 && resetAt !== 0) restoredAt(at);
      },
    );
    await applyAs(http, 'kustomize-controller', `${ROUTES}/web`, httpRouteManifest('web', 100, 0));
    out.push((await restored) - resetAt);
    watch.close();
  }
  return out;
}

export default benchmark;
