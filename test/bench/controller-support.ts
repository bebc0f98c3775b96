// Shared pieces of the controller benchmarks: a controller process on the benchmark's cluster,
// request counters from its /metrics, and Rollouts created and watched over plain HTTP.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import type { ReplicaSet, Rollout } from '../../src/api/index.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { ControllerProcess } from '../e2e/support/controller.ts';
import type { ControllerOptions } from '../e2e/support/controller.ts';

export const ROLLOUTS = '/apis/stepwise.dev/v1alpha1';

export function clientFor(cluster: Cluster): KubeHttp {
  // The controller child processes read KUBECONFIG from the environment.
  process.env.KUBECONFIG = cluster.kubeconfigPath;
  return new KubeHttp(readCredentials(cluster.kubeconfigPath));
}

export async function controller(
  args: string[],
  opts: Pick<ControllerOptions, 'entry' | 'nodeFlags' | 'env'> = {},
): Promise<ControllerProcess> {
  return new ControllerProcess({ args, ...opts }).ready();
}

/** `controller_clientset_k8s_request_total` as `verb resource` → count (all codes). */
export function requestCounts(metrics: string): Map<string, number> {
  const out = new Map<string, number>();
  const re = /^controller_clientset_k8s_request_total\{([^}]*)\} (\d+(?:\.\d+)?)$/gm;
  for (const m of metrics.matchAll(re)) {
    const labels: Record<string, string> = {};
    for (const l of (m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[l[1] ?? ''] = l[2] ?? '';
    const key = `${labels.verb} ${labels.resource}`;
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}

/**
 * `controller_clientset_k8s_request_total` summed by verb (lower case) → count. Both Stepwise's
 * metric and Argo Rollouts' (whose labels are kind/name/namespace/verb/status_code and whose
 * verbs are capitalised: `List`, `Watch`) read the same, so the two can be printed side by side.
 */
export function requestsByVerb(metrics: string): Map<string, number> {
  const out = new Map<string, number>();
  const re = /^controller_clientset_k8s_request_total\{([^}]*)\} (\S+)$/gm;
  for (const m of metrics.matchAll(re)) {
    const verb = (/(?:^|,)verb="([^"]*)"/.exec(m[1] ?? '')?.[1] ?? '').toLowerCase();
    out.set(verb, (out.get(verb) ?? 0) + Number(m[2]));
  }
  return out;
}

/** The sum of every series of one metric (a counter, or a histogram's `_count`); 0 without any. */
export function metricSum(metrics: string, name: string): number {
  // Metric names are [a-zA-Z0-9_:] only: nothing to escape.
  const re = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm');
  let sum = 0;
  for (const m of metrics.matchAll(re)) sum += Number(m[1]);
  return sum;
}

/** Waits until the controller has made no request for a second (events are written async). */
export async function quiet(ctl: ControllerProcess): Promise<void> {
  let last = '';
  for (let i = 0; i < 30; i++) {
    const now = JSON.stringify([...requestCounts(await ctl.metrics())]);
    if (now === last) return;
    last = now;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export function diffCounts(
  before: Map<string, number>,
  after: Map<string, number>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d !== 0) out.set(k, d);
  }
  return out;
}

/** One read of the controller's request total (rate-limit and scale benches). */
export interface Sample {
  /** Scrape sent and answered: the counter was read somewhere in between. */
  readonly t0: number;
  readonly t1: number;
  /** Mid-scrape, for windows. */
  readonly at: number;
  readonly requests: number;
}

/**
 * Requests counted in each window from one sample to the last one at most `ms` later (mid-scrape
 * times). Counts are of answered requests, so a server stall can bunch them a little.
 */
export function windowCounts(samples: readonly Sample[], ms: number): number[] {
  const counts: number[] = [];
  let j = 0;
  for (let i = 0; i < samples.length; i++) {
    const start = samples[i] as Sample;
    j = Math.max(j, i);
    while (j + 1 < samples.length && (samples[j + 1] as Sample).at - start.at <= ms) j++;
    counts.push((samples[j] as Sample).requests - start.requests);
  }
  return counts;
}

/** Totals of the rate limiter wait histogram over all labels. */
export function rateLimiterWait(metrics: string): { seconds: number; requests: number } {
  const sum = (suffix: string): number => {
    const re = new RegExp(
      `^controller_clientset_k8s_rate_limiter_duration_seconds_${suffix}\\{[^}]*\\} (\\S+)$`,
      'gm',
    );
    let n = 0;
    for (const m of metrics.matchAll(re)) n += Number(m[1]);
    return n;
  };
  return { seconds: sum('sum'), requests: sum('count') };
}

export const WRITE_VERBS = ['create', 'update', 'patch', 'apply', 'delete'];

export function sumBy(counts: Map<string, number>, verbs: readonly string[]): number {
  let n = 0;
  for (const [k, v] of counts) if (verbs.includes(k.split(' ')[0] ?? '')) n += v;
  return n;
}

export async function createNamespace(http: KubeHttp, name: string): Promise<void> {
  await http.json('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
}

export function rollout(
  name: string,
  spec: Partial<Rollout['spec']> = {},
  image = 'app:1',
): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] },
      },
      strategy: { canary: {} },
      ...spec,
    },
  };
}

export function setImage(
  http: KubeHttp,
  ns: string,
  name: string,
  image: string,
): Promise<unknown> {
  return http.json(
    'PATCH',
    `${ROLLOUTS}/namespaces/${ns}/rollouts/${name}`,
    {
      spec: {
        template: { spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] } },
      },
    },
    'application/merge-patch+json',
  );
}

export function patchStatus(
  http: KubeHttp,
  ns: string,
  name: string,
  status: object,
): Promise<unknown> {
  return http.json(
    'PATCH',
    `${ROLLOUTS}/namespaces/${ns}/rollouts/${name}/status?fieldManager=kubectl-stepwise`,
    { status },
    'application/merge-patch+json',
  );
}

/** A watch on one namespace's collection that calls back with each event and its arrival time. */
export async function watchCollection<T>(
  http: KubeHttp,
  path: string,
  onEvent: (type: string, obj: T, at: number) => void,
  onEnd?: () => void,
): Promise<{ close(): void }> {
  return http.watch(
    path,
    (e) => onEvent(e.type, e.object as T, performance.timeOrigin + performance.now()),
    onEnd,
  );
}

/**
 * Opens a watch on one Rollout and resolves once it is open, with a promise of the first state
 * (and its arrival time) for which `pred` holds: arm it before the action being timed.
 */
export async function armRollout(
  http: KubeHttp,
  ns: string,
  name: string,
  pred: (r: Rollout) => boolean,
  timeoutMs = 120_000,
): Promise<{ done: Promise<{ rollout: Rollout; at: number }> }> {
  let resolveDone!: (v: { rollout: Rollout; at: number }) => void;
  let rejectDone!: (e: Error) => void;
  const done = new Promise<{ rollout: Rollout; at: number }>((res, rej) => {
    resolveDone = res;
    rejectDone = rej;
  });
  let finished = false;
  const w = await watchCollection<Rollout>(
    http,
    `${ROLLOUTS}/namespaces/${ns}/rollouts?fieldSelector=metadata.name%3D${name}`,
    (type, r, at) => {
      if (finished || (type !== 'ADDED' && type !== 'MODIFIED') || !pred(r)) return;
      finished = true;
      clearTimeout(timer);
      w.close();
      resolveDone({ rollout: r, at });
    },
  );
  const timer = setTimeout(() => {
    finished = true;
    w.close();
    rejectDone(new Error(`timed out waiting for ${ns}/${name}`));
  }, timeoutMs);
  return { done };
}

export async function waitRollout(
  http: KubeHttp,
  ns: string,
  name: string,
  pred: (r: Rollout) => boolean,
  timeoutMs?: number,
): Promise<{ rollout: Rollout; at: number }> {
  return (await armRollout(http, ns, name, pred, timeoutMs)).done;
}

export const healthyAndPromoted = (r: Rollout): boolean =>
  r.status?.phase === 'Healthy' &&
  r.status.observedGeneration === String(r.metadata.generation) &&
  r.status.stableRS === r.status.currentPodHash;

export const nowMs = (): number => performance.timeOrigin + performance.now();

export const ms = (x: number): string => `${x.toFixed(1)} ms`;

/** Server-side applies every CRD in deploy/crds (the controller watches them all) and waits
 *  until each is Established. */
export async function installCrds(http: KubeHttp): Promise<void> {
  const dir = join(import.meta.dirname, '..', '..', 'deploy', 'crds');
  const names: string[] = [];
  for (const file of await readdir(dir)) {
    const crd = load(await readFile(join(dir, file), 'utf8')) as { metadata: { name: string } };
    names.push(crd.metadata.name);
    await http.json(
      'PATCH',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=bench&force=true`,
      crd,
      'application/apply-patch+yaml',
    );
  }
  for (const name of names) {
    for (let i = 0; ; i++) {
      const c = await http.json<{ status?: { conditions?: { type: string; status: string }[] } }>(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
      if (c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')) break;
      if (i === 100) throw new Error(`CRD ${name} not Established`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** How the controller runs in production: node flags and environment. */
export interface ProductionRuntime {
  readonly nodeFlags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The controller container of the Kustomize base's Deployment (the chart's defaults equal it):
 * NODE_OPTIONS as node flags, its other literal env values (MALLOC_ARENA_MAX) as environment.
 * `BENCH_NODE_FLAGS` replaces the flags ("" for none) and `BENCH_<NAME>` a variable's value
 * ("" to leave it unset), to compare others.
 */
export async function productionRuntime(
  overrides: NodeJS.ProcessEnv = process.env,
): Promise<ProductionRuntime> {
  const file = join(REPO_ROOT, 'deploy', 'controller', 'controller.yaml');
  type Container = { name: string; env?: { name: string; value?: string }[] };
  type Doc = { kind?: string; spec?: { template?: { spec?: { containers?: Container[] } } } };
  const docs = loadAll(await readFile(file, 'utf8')) as Doc[];
  const deployment = docs.find((d) => d.kind === 'Deployment');
  const literal = (deployment?.spec?.template?.spec?.containers?.[0]?.env ?? []).filter(
    (e): e is { name: string; value: string } => e.value !== undefined,
  );
  const options = literal.find((e) => e.name === 'NODE_OPTIONS')?.value;
  if (options === undefined)
    throw new Error(`${file}: the controller container sets no NODE_OPTIONS`);
  const env: Record<string, string> = {};
  for (const { name, value } of literal) {
    if (name === 'NODE_OPTIONS') continue;
    const chosen = overrides[`BENCH_${name}`] ?? value;
    if (chosen !== '') env[name] = chosen;
  }
  const flags = overrides['BENCH_NODE_FLAGS'] ?? options;
  return { nodeFlags: flags.split(' ').filter((f) => f !== ''), env };
}

/** The V8 old-space limit the runtime's flags set (`--max-old-space-size`), in MB. */
export function heapLimitMb(runtime: ProductionRuntime): number | undefined {
  const flag = runtime.nodeFlags.findLast((f) => f.startsWith('--max-old-space-size='));
  return flag === undefined ? undefined : Number(flag.slice('--max-old-space-size='.length));
}

/** The command line a bench ran, for its report: `NAME=value node flags script args`. */
export function commandLine(
  runtime: ProductionRuntime,
  script: string,
  args: readonly string[] = [],
) {
  const env = Object.entries(runtime.env).map(([k, v]) => `${k}=${v}`);
  return [...env, 'node', ...runtime.nodeFlags, script, ...args].join(' ');
}

/**
 * Template change → the canary ReplicaSet's ADDED event, `changes` times on one Rollout (images
 * app:firstImage, app:firstImage+1, ...), each on a quiet controller: one change on a settled
 * cluster. Back to back, the dozen or more requests of each change (ReplicaSets, status,
 * Events) drain the --burst bucket within ~14 changes, and from then on the figure is the rate
 * limiter's (~40 ms a write at --qps 50), not the controller's.
 */
export async function canaryLatencies(
  http: KubeHttp,
  ctl: ControllerProcess,
  target: { readonly ns: string; readonly name: string },
  changes: number,
  firstImage: number,
): Promise<number[]> {
  const { ns, name } = target;
  const seen = new Map<string, number>();
  const rsWatch = await watchCollection<ReplicaSet>(
    http,
    `/apis/apps/v1/namespaces/${ns}/replicasets`,
    (type, rs, at) => {
      if (type === 'ADDED') seen.set(rs.metadata?.name ?? '', at);
    },
  );
  try {
    const samples: number[] = [];
    for (let i = 0; i < changes; i++) {
      const image = `app:${firstImage + i}`;
      await quiet(ctl);
      const settled = await armRollout(
        http,
        ns,
        name,
        (r) =>
          healthyAndPromoted(r) &&
          r.spec.template?.spec?.containers[0]?.image === `registry.invalid/${image}`,
      );
      const t0 = nowMs();
      await setImage(http, ns, name, image);
      const { rollout: done } = await settled.done;
      const at = seen.get(`${name}-${done.status?.currentPodHash}`);
      if (at === undefined) throw new Error('the canary ReplicaSet was never seen');
      samples.push(at - t0);
    }
    return samples;
  } finally {
    rsWatch.close();
  }
}
