/**
 * Which change wakes which work: every informer event mapped to the Rollout keys (and the
 * AnalysisRun keys) that must take another look. The mapping functions live in caches.ts; this
 * is where they are attached.
 */
import { ANALYSIS_RUN_KIND } from '../api/index.ts';
import type {
  AnalysisRun,
  AnalysisTemplate,
  Pod,
  ReplicaSet,
  Rollout,
  Service,
} from '../api/index.ts';
import type { EventHandler } from '../kube/informer.ts';
import { namespacedKey, type KubeObject } from '../kube/objects.ts';
import {
  rolloutKeyForRunChange,
  rolloutKeyOfApproval,
  rolloutKeysForPod,
  rolloutKeysForService,
  rolloutKeysForTemplate,
  rolloutKeysForTrafficObject,
  rolloutOwnerKey,
} from './caches.ts';
import type { ControllerInformers } from './informers.ts';
import type { Key } from './reconciler.ts';
import type { TrafficInformers } from './traffic-wiring.ts';

export interface Wake {
  /** Rollout keys to reconcile (undefined entries are skipped). */
  rollouts(keys: readonly (Key | undefined)[]): void;
  /** An AnalysisRun key to reconcile. */
  run(key: Key): void;
}

export function wireWakeups(
  stores: ControllerInformers,
  traffic: TrafficInformers,
  wake: Wake,
): void {
  const onChange = <T>(keys: (obj: T) => readonly (Key | undefined)[]): EventHandler<T> => ({
    onAdd: (o) => wake.rollouts(keys(o)),
    onUpdate: (old, o) => wake.rollouts([...keys(old), ...keys(o)]),
    onDelete: (o) => wake.rollouts(keys(o)),
  });
  stores.rollouts.addEventHandler(onChange((r: Rollout) => [namespacedKey(r)]));
  stores.replicaSets.addEventHandler(onChange((rs: ReplicaSet) => [rolloutOwnerKey(rs)]));
  stores.pods.addEventHandler(onChange((p: Pod) => rolloutKeysForPod(stores, p)));
  stores.services.addEventHandler(onChange((s: Service) => rolloutKeysForService(stores, s)));
  traffic.onChange((key) => wake.rollouts(rolloutKeysForTrafficObject(stores, key)));
  stores.analysisTemplates.addEventHandler(
    onChange((t: AnalysisTemplate) => rolloutKeysForTemplate(stores, t, false)),
  );
  stores.clusterAnalysisTemplates.addEventHandler(
    onChange((t: AnalysisTemplate) => rolloutKeysForTemplate(stores, t, true)),
  );
  // A run's owner Rollout looks again when the run appears, goes, or changes phase.
  stores.analysisRuns.addEventHandler({
    onAdd: (r) => wake.rollouts([rolloutKeyForRunChange(undefined, r)]),
    onUpdate: (old, r) => wake.rollouts([rolloutKeyForRunChange(old, r)]),
    onDelete: (r) => wake.rollouts([rolloutKeyForRunChange(undefined, r)]),
  });
  // A person's decision wakes the Rollout it names (our own answer on its status does not).
  stores.approvals.addEventHandler({
    onAdd: (a) => wake.rollouts([rolloutKeyOfApproval(a)]),
    onUpdate: () => undefined,
    onDelete: () => undefined,
  });

  const ownerRun = (job: KubeObject): void => {
    const owner = job.metadata?.ownerReferences?.find((o) => o.kind === ANALYSIS_RUN_KIND);
    if (owner !== undefined) wake.run(`${job.metadata?.namespace}/${owner.name}`);
  };
  stores.jobs.addEventHandler({
    onAdd: ownerRun,
    onUpdate: (_old, j) => ownerRun(j),
    onDelete: ownerRun,
  });
  // A run's own status writes (ours) need no pass: its next one is already scheduled. A spec
  // change (terminate) or a deletion does.
  stores.analysisRuns.addEventHandler({
    onAdd: (r: AnalysisRun) => wake.run(namespacedKey(r)),
    onUpdate: (old, r) => {
      if (old.metadata.generation !== r.metadata.generation) wake.run(namespacedKey(r));
    },
    onDelete: (r) => wake.run(namespacedKey(r)),
  });
}
