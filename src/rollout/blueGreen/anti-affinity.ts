/**
 * antiAffinity: while a new version waits beside the stable one, its pods avoid the nodes the
 * stable pods run on (Argo's GenerateReplicaSetAffinity), so one node's failure cannot take both
 * versions. The term goes into the new ReplicaSet's pod spec only, never into the Rollout's
 * template, so it never changes the pod-template hash.
 */
import { HOSTNAME_TOPOLOGY_KEY, POD_TEMPLATE_HASH_LABEL } from '../../api/index.ts';
import type { AntiAffinity, PodSpec } from '../../api/index.ts';

/** `spec` with a term keeping its pods off the nodes of pods with `stableHash`. */
export function withAntiAffinity(
  spec: PodSpec,
  anti: AntiAffinity,
  stableHash: string,
  namespace: string | undefined,
): PodSpec {
  const term = {
    labelSelector: {
      matchExpressions: [{ key: POD_TEMPLATE_HASH_LABEL, operator: 'In', values: [stableHash] }],
    },
    ...(namespace === undefined ? {} : { namespaces: [namespace] }),
    topologyKey: HOSTNAME_TOPOLOGY_KEY,
  };
  const affinity = spec.affinity ?? {};
  const pod = affinity.podAntiAffinity ?? {};
  const preferred = anti.preferredDuringSchedulingIgnoredDuringExecution;
  const podAntiAffinity =
    preferred !== undefined
      ? {
          ...pod,
          preferredDuringSchedulingIgnoredDuringExecution: [
            ...(pod.preferredDuringSchedulingIgnoredDuringExecution ?? []),
            { weight: preferred.weight, podAffinityTerm: term },
          ],
        }
      : {
          ...pod,
          requiredDuringSchedulingIgnoredDuringExecution: [
            ...(pod.requiredDuringSchedulingIgnoredDuringExecution ?? []),
            term,
          ],
        };
  return { ...spec, affinity: { ...affinity, podAntiAffinity } };
}
