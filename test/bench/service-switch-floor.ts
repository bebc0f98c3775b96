// The API server's own time for the write a blue-green switch makes, on the same cluster: a
// Service's selector moved by server-side apply from one set of 4 Ready pods to another (so the
// endpoint controllers react as they do to a real switch), timed from the request until the
// change arrives on a watch. The ConfigMap floor (api-floor.ts) has neither a Service's admission
// and allocation work nor the endpoint controllers competing for the CPU when the event is sent.
import type { KubeHttp } from '../cluster/kube-http.ts';
import { serviceManifest } from '../fixtures/traffic.ts';
import { stats, type Stats } from './harness.ts';
import { resumableWatch } from './resumable-watch.ts';

const NAME = 'switch-floor';
const EVENT_TIMEOUT_MS = 10_000;
/** Between switches: the endpoint controllers' work for one is over before the next. */
const SETTLE_MS = 100;
const WARM_UP = 10;

export interface ServiceSwitchFloor {
  /** Request sent → the changed Service seen on a watch. */
  readonly applyToEvent: Stats;
  /** Request sent → response. */
  readonly apply: Stats;
}

/** `apps`: two app labels, each selecting the pods of a settled Rollout. */
export async function measureServiceSwitch(
  http: KubeHttp,
  ns: string,
  apps: readonly [string, string],
  samples: number,
): Promise<ServiceSwitchFloor> {
  const base = `/api/v1/namespaces/${ns}/services`;
  await http.json('POST', base, serviceManifest(NAME, apps[0]));
  const arrivals = new Map<string, (at: number) => void>();
  const watch = await resumableWatch(http, `${base}?fieldSelector=metadata.name%3D${NAME}`, {
    onEvent: (_type, obj, at) => {
      const app = (obj as { spec?: { selector?: Record<string, string> } }).spec?.selector?.['app'];
      if (app !== undefined) arrivals.get(app)?.(at);
    },
  });
  const applyToEvent: number[] = [];
  const apply: number[] = [];
  try {
    for (let i = 0; i < WARM_UP + samples; i++) {
      const app = apps[(i + 1) % 2] as string;
      const gaps = watch.gaps;
      const seen = new Promise<number>((resolve, reject) => {
        arrivals.set(app, resolve);
        setTimeout(
          () => reject(new Error(`${NAME}: the switch to app=${app} was not seen`)),
          EVENT_TIMEOUT_MS,
        ).unref();
      });
      const sent = performance.timeOrigin + performance.now();
      await http.json(
        'PATCH',
        `${base}/${NAME}?fieldManager=stepwise-bench&force=true`,
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: NAME },
          spec: { selector: { app } },
        },
        'application/apply-patch+yaml',
      );
      const answered = performance.timeOrigin + performance.now();
      const at = await seen;
      arrivals.delete(app);
      if (i >= WARM_UP && watch.gaps === gaps) {
        applyToEvent.push(at - sent);
        apply.push(answered - sent);
      }
      await new Promise((r) => setTimeout(r, SETTLE_MS));
    }
  } finally {
    watch.close();
    await http.request('DELETE', `${base}/${NAME}`);
  }
  return { applyToEvent: stats(applyToEvent), apply: stats(apply) };
}
