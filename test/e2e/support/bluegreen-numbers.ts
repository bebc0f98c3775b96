/**
 * Blue-green observed as Argo's e2e tests observe it (`test/fixtures/then.go`): the replica
 * tuple, the ReplicaSets by revision, and which revision each Service selects, read from the
 * Service itself and from `status.blueGreen` (Argo's `verifyBlueGreenSelectorRevision`).
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type {
  BlueGreenStrategy,
  ReplicaSet,
  Rollout,
  RolloutSpec,
} from '../../../src/api/index.ts';
import { POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION } from '../../../src/api/keys.ts';
import { Reason } from '../../../src/api/reasons.ts';
import { testNamespace } from '../../cluster/testing.ts';
import {
  createService,
  events,
  getService,
  http,
  replicaSets,
  rolloutBody,
  waitForList,
} from './rollouts.ts';

/** (desired, current, updated, ready, available) = (spec.replicas, status.replicas,
 *  status.updatedReplicas, status.readyReplicas, status.availableReplicas). */
export type Tuple = readonly [number, number, number, number, number];

export const tuple = (r: Rollout): Tuple => [
  r.spec.replicas ?? 1,
  r.status?.replicas ?? 0,
  r.status?.updatedReplicas ?? 0,
  r.status?.readyReplicas ?? 0,
  r.status?.availableReplicas ?? 0,
];

export const hasTuple =
  (expected: Tuple) =>
  (r: Rollout): boolean =>
    tuple(r).every((v, i) => v === expected[i]);

export const activeService = (app: string): string => `${app}-active`;
export const previewService = (app: string): string => `${app}-preview`;

/** A blue-green Rollout `app` with Services `<app>-active` and `<app>-preview`. */
export function blueGreenRollout(
  app: string,
  blueGreen: Partial<BlueGreenStrategy> = {},
  spec: Partial<RolloutSpec> = {},
): Rollout {
  return rolloutBody(app, {
    ...spec,
    strategy: {
      blueGreen: {
        activeService: activeService(app),
        previewService: previewService(app),
        ...blueGreen,
      },
    },
  });
}

export async function createBlueGreenServices(namespace: string, app: string): Promise<void> {
  await createService(namespace, activeService(app), app);
  await createService(namespace, previewService(app), app);
}

const revisionOf = (rs: ReplicaSet): number =>
  Number(rs.metadata?.annotations?.[REVISION_ANNOTATION] ?? NaN);
export const hashOfRs = (rs: ReplicaSet): string | undefined =>
  rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];

/** The hash of revision `n`'s ReplicaSet. */
export async function revisionHash(namespace: string, app: string, n: number): Promise<string> {
  const rss = await replicaSets(namespace, app);
  const rs = rss.find((x) => revisionOf(x) === n);
  const hash = rs && hashOfRs(rs);
  assert.ok(hash, `no ReplicaSet of revision ${n}; revisions: ${rss.map(revisionOf).join(',')}`);
  return hash;
}

/** spec.replicas of each revision's ReplicaSet, `{revision: replicas}`. */
export function replicasByRevision(rss: readonly ReplicaSet[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const rs of rss) out[revisionOf(rs)] = rs.spec?.replicas ?? 0;
  return out;
}

/** Waits until every revision in `expected` asks for that many pods (Argo's
 *  ExpectRevisionPodCount); revisions not named may ask for anything. */
export async function waitForRevisionReplicas(
  namespace: string,
  app: string,
  expected: Record<number, number>,
  timeoutMs = 60_000,
): Promise<void> {
  await waitForList(
    `ReplicaSets by revision ${JSON.stringify(expected)}`,
    `/apis/apps/v1/namespaces/${namespace}/replicasets?labelSelector=app%3D${app}`,
    (items: ReplicaSet[]) => {
      const got = replicasByRevision(items);
      return Object.entries(expected).every(([rev, n]) => (got[Number(rev)] ?? 0) === n);
    },
    timeoutMs,
  );
}

/** status.blueGreen names these hashes (the controller read them back from the Services). */
export const selects =
  (active: string, preview?: string) =>
  (r: Rollout): boolean =>
    r.status?.blueGreen?.activeSelector === active &&
    (preview === undefined || r.status.blueGreen.previewSelector === preview);

/** "active N, preview M": the Services' hash and status.blueGreen's are revision N's and M's. */
export async function assertServing(
  namespace: string,
  app: string,
  r: Rollout,
  expected: { active: number; preview?: number },
): Promise<void> {
  const active = await revisionHash(namespace, app, expected.active);
  const activeSvc = await getService(namespace, activeService(app));
  assert.equal(activeSvc.spec?.selector?.[POD_TEMPLATE_HASH_LABEL], active, 'active Service');
  assert.equal(r.status?.blueGreen?.activeSelector, active, 'status.blueGreen.activeSelector');
  if (expected.preview === undefined) return;
  const preview = await revisionHash(namespace, app, expected.preview);
  const previewSvc = await getService(namespace, previewService(app));
  assert.equal(previewSvc.spec?.selector?.[POD_TEMPLATE_HASH_LABEL], preview, 'preview Service');
  assert.equal(r.status?.blueGreen?.previewSelector, preview, 'status.blueGreen.previewSelector');
}

/** Records every value a watched object goes through, from now until stop(). */
export interface Recorder<T> {
  readonly seen: T[];
  stop(): void;
}

async function record<O, T>(path: string, pick: (o: O) => T): Promise<Recorder<T>> {
  const seen: T[] = [];
  const w = await http.watch(path, (e) => {
    if (e.type === 'ADDED' || e.type === 'MODIFIED') seen.push(pick(e.object as O));
  });
  return { seen, stop: () => w.close() };
}

/** Every hash the Service selects, as the API server hands out its versions. */
export function recordServiceHashes(
  namespace: string,
  service: string,
): Promise<Recorder<string | undefined>> {
  return record(
    `/api/v1/namespaces/${namespace}/services?fieldSelector=metadata.name%3D${service}`,
    (s: { spec?: { selector?: Record<string, string> } }) =>
      s.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
  );
}

/** Every version of the Rollout, as the API server hands them out. */
export function recordRollout(namespace: string, name: string): Promise<Recorder<Rollout>> {
  return record(
    `/apis/stepwise.dev/v1alpha1/namespaces/${namespace}/rollouts?fieldSelector=metadata.name%3D${name}`,
    (r: Rollout) => r,
  );
}

/**
 * A namespace for one test, checked when the test ends: a blue-green update moving as it should
 * is never taken for a planner bug, so no StatusWriteStorm warning (the shell backs off a
 * Rollout's status writes then, and what the planner does meanwhile rests on a stale status).
 */
export async function guardedNamespace(prefix: string): Promise<string> {
  const ns = await testNamespace(prefix);
  after(async () => {
    const storms = (await events(ns)).filter((e) => e.reason === Reason.StatusWriteStorm);
    assert.deepEqual(
      storms.map((e) => e.message),
      [],
      `no ${Reason.StatusWriteStorm} warning in ${ns}`,
    );
  });
  return ns;
}
