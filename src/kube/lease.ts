/** The Lease object and the three calls leader election makes on it. */
import type { KubeApi } from './kube-api.ts';
import type { ObjectMeta } from './objects.ts';
import { Resources } from './resources.ts';

export interface LeaseSpec {
  readonly holderIdentity?: string | null;
  readonly leaseDurationSeconds?: number | null;
  /** MicroTime: RFC 3339 with six fractional digits. */
  readonly acquireTime?: string | null;
  readonly renewTime?: string | null;
  readonly leaseTransitions?: number | null;
}

export interface Lease {
  readonly apiVersion: 'coordination.k8s.io/v1';
  readonly kind: 'Lease';
  readonly metadata: ObjectMeta & { readonly name: string; readonly namespace: string };
  readonly spec?: LeaseSpec;
}

export interface LeaseClient {
  get(namespace: string, name: string): Promise<Lease | undefined>;
  create(lease: Lease): Promise<Lease>;
  /** Replaces the Lease; a Conflict error unless `metadata.resourceVersion` is current. */
  update(lease: Lease): Promise<Lease>;
}

export function kubeLeaseClient(api: KubeApi): LeaseClient {
  return {
    get: (namespace, name) => api.get<Lease>(Resources.Lease, namespace, name),
    create: (lease) => api.create(lease),
    update: (lease) => api.update(lease),
  };
}
