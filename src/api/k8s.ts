/** The Kubernetes object types Stepwise reads and writes, re-exported so that pure modules
 *  (src/rollout) depend on src/api only. Type-only: no runtime import. */
export type {
  V1ObjectMeta as ObjectMeta,
  V1OwnerReference as OwnerReference,
  V1ReplicaSet as ReplicaSet,
  V1Deployment as Deployment,
  V1PodTemplate as PodTemplate,
  V1Service as Service,
  V1Pod as Pod,
  V1PodTemplateSpec as PodTemplateSpec,
  V1PodSpec as PodSpec,
} from '@kubernetes/client-node';
