/**
 * The live objects of an Argo Rollout (the Rollout, its ReplicaSets and pods, the Services it
 * names) as test data: test/fixtures/argo/<scenario>.json, recorded from the real controller by
 * test/e2e/argo-takeover.test.ts (`STEPWISE_RECORD_ARGO_FIXTURES=1` rewrites them), read by unit
 * tests that need Argo's shapes without a cluster.
 *
 * Volatile fields are trimmed so that a recording is stable across runs and reads as data:
 * resourceVersion, managedFields' times, status.hostIP/podIP(s), and the namespace (always
 * `argo-fixture`). UIDs become names (`uid-rollout-web`, `uid-replicaset-web-6d8f...`, ...) with
 * ownerReferences rewritten to match, so ownership can still be followed. Timestamps are kept
 * as Argo and the API server wrote them. Argo's pod-template hashes are deterministic (the same
 * template gives the same hash), so they are kept too.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../cluster/state.ts';
import { ARGO_API } from './argo.ts';
import { http } from './rollouts.ts';

export const FIXTURE_DIR = join(REPO_ROOT, 'test', 'fixtures', 'argo');
export const FIXTURE_NAMESPACE = 'argo-fixture';
export const RECORD_ENV = 'STEPWISE_RECORD_ARGO_FIXTURES';

type Json = Record<string, unknown>;
interface Meta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  ownerReferences?: { uid?: string }[];
  managedFields?: { time?: string }[];
}
interface KubeObject extends Json {
  kind?: string;
  metadata?: Meta;
  status?: Json;
}

/** One scenario: what Argo left in the cluster for one Rollout. */
export interface ArgoScenario {
  /** The Argo Rollouts version that wrote it (test/cluster/argo/go.mod). */
  readonly argoVersion: string;
  readonly rollout: KubeObject;
  /** Sorted by name. */
  readonly replicaSets: readonly KubeObject[];
  /** The pods of those ReplicaSets, sorted by ReplicaSet, then name. */
  readonly pods: readonly KubeObject[];
  /** The Services the strategy names (canary/stable, active/preview), sorted by name. */
  readonly services: readonly KubeObject[];
}

/** The Argo version pinned by test/cluster/argo/go.mod. */
export function argoVersion(): string {
  const goMod = readFileSync(join(REPO_ROOT, 'test', 'cluster', 'argo', 'go.mod'), 'utf8');
  const m = /^require github\.com\/argoproj\/argo-rollouts (v\S+)$/m.exec(goMod);
  if (!m?.[1]) throw new Error('test/cluster/argo/go.mod pins no argo-rollouts version');
  return m[1];
}

/** Reads the live objects of Rollout `name` in `namespace`, trimmed (see the file comment). */
export async function snapshot(namespace: string, name: string): Promise<ArgoScenario> {
  const rollout = await http.json<KubeObject>(
    'GET',
    `${ARGO_API}/namespaces/${namespace}/rollouts/${name}`,
  );
  const rolloutUid = rollout.metadata?.uid;
  const owned = (o: KubeObject, uid: string | undefined) =>
    o.metadata?.ownerReferences?.some((r) => r.uid === uid) === true;
  const rsList = await http.json<{ items: KubeObject[] }>(
    'GET',
    `/apis/apps/v1/namespaces/${namespace}/replicasets`,
  );
  // Items of a list carry no apiVersion and kind of their own.
  const replicaSets = rsList.items
    .filter((rs) => owned(rs, rolloutUid))
    .sort(byName)
    .map((rs) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', ...rs }));
  const podList = await http.json<{ items: KubeObject[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/pods`,
  );
  const pods = replicaSets.flatMap((rs) =>
    podList.items
      .filter((p) => owned(p, rs.metadata?.uid))
      .sort(byName)
      .map((p) => ({ apiVersion: 'v1', kind: 'Pod', ...p })),
  );
  const services: KubeObject[] = [];
  for (const svc of serviceNames(rollout)) {
    services.push(
      await http.json<KubeObject>('GET', `/api/v1/namespaces/${namespace}/services/${svc}`),
    );
  }
  const uids = new Map<string, string>();
  for (const o of [rollout, ...replicaSets, ...pods, ...services]) {
    const uid = o.metadata?.uid;
    if (uid) uids.set(uid, `uid-${(o.kind ?? 'object').toLowerCase()}-${o.metadata?.name ?? ''}`);
  }
  const trim = (o: KubeObject): KubeObject => trimmed(o, uids);
  return {
    argoVersion: argoVersion(),
    rollout: trim(rollout),
    replicaSets: replicaSets.map(trim),
    pods: pods.map(trim),
    services: services.sort(byName).map(trim),
  };
}

function serviceNames(rollout: KubeObject): string[] {
  const strategy = (rollout.spec as { strategy?: Record<string, Record<string, unknown>> })
    ?.strategy;
  const names = [
    strategy?.canary?.canaryService,
    strategy?.canary?.stableService,
    strategy?.blueGreen?.activeService,
    strategy?.blueGreen?.previewService,
  ];
  return names.filter((n): n is string => typeof n === 'string' && n !== '');
}

const byName = (a: KubeObject, b: KubeObject): number =>
  (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');

function trimmed(o: KubeObject, uids: ReadonlyMap<string, string>): KubeObject {
  const copy = JSON.parse(JSON.stringify(o)) as KubeObject;
  const meta = copy.metadata ?? {};
  delete meta.resourceVersion;
  meta.namespace = FIXTURE_NAMESPACE;
  if (meta.uid) meta.uid = uids.get(meta.uid) ?? 'uid-unknown';
  for (const ref of meta.ownerReferences ?? []) {
    if (ref.uid) ref.uid = uids.get(ref.uid) ?? 'uid-unknown';
  }
  for (const f of meta.managedFields ?? []) delete f.time;
  if (copy.kind === 'Pod' && copy.status) {
    for (const key of ['hostIP', 'hostIPs', 'podIP', 'podIPs']) delete copy.status[key];
  }
  return copy;
}

/** The committed fixture `scenario` (test/fixtures/argo/<scenario>.json). */
export function readFixture(scenario: string): ArgoScenario {
  return JSON.parse(readFileSync(join(FIXTURE_DIR, `${scenario}.json`), 'utf8')) as ArgoScenario;
}

/** Writes `snap` as the fixture `scenario` (only when recording). */
export function writeFixture(scenario: string, snap: ArgoScenario): void {
  mkdirSync(FIXTURE_DIR, { recursive: true });
  writeFileSync(join(FIXTURE_DIR, `${scenario}.json`), `${JSON.stringify(snap, null, 2)}\n`);
}

/**
 * What must not drift between Argo's live objects and a recording: for each object its kind,
 * name, labels, annotations, ownerReferences and the Service selectors, and the Rollout's status
 * less times. Pod names (random suffixes), node names and timestamps are left out.
 */
export function shape(s: ArgoScenario): Json {
  const meta = (o: KubeObject) => ({
    kind: o.kind,
    labels: o.metadata?.labels,
    annotations: (o.metadata as { annotations?: unknown } | undefined)?.annotations,
    ownerReferences: o.metadata?.ownerReferences,
  });
  // Times differ from run to run, and the order of conditions with the order of Argo's writes.
  const withoutTimes = (v: unknown): unknown =>
    JSON.parse(
      JSON.stringify(v, (k, x: unknown) => (/Time$|^startTime$|At$/.test(k) ? '<time>' : x)),
    );
  const status = withoutTimes(s.rollout.status) as { conditions?: { type: string }[] };
  status.conditions?.sort((a, b) => a.type.localeCompare(b.type));
  return {
    rollout: {
      ...meta(s.rollout),
      name: s.rollout.metadata?.name,
      status,
    },
    replicaSets: s.replicaSets.map((rs) => ({
      ...meta(rs),
      name: rs.metadata?.name,
      spec: rs.spec,
    })),
    pods: s.pods.map((p) => ({
      ...meta(p),
      ownerReferences: undefined,
      owner: p.metadata?.ownerReferences?.[0]?.uid,
    })),
    services: s.services.map((svc) => ({
      ...meta(svc),
      name: svc.metadata?.name,
      spec: (svc.spec as { selector?: unknown }).selector,
    })),
  };
}
