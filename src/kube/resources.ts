/**
 * Resource types (group, version, kind, plural, scope) and the REST paths built from them. The
 * client writes to a path it can compute, with no discovery requests; types the table does not
 * know are passed in by the caller (`ResourceRegistry`).
 */
import { GROUP, VERSION } from '../api/index.ts';
import type { KubeObject } from './objects.ts';

export interface ResourceType {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

/** A verb RBAC grants on a resource. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'patch' | 'update' | 'delete';

/**
 * A kind an extension (a traffic router, a metric provider) reads or writes, with every verb it
 * uses on it: the RBAC in deploy/ must grant them (test/unit/rbac.test.ts checks it).
 */
export interface KindAccess {
  readonly type: ResourceType;
  readonly verbs: readonly Verb[];
}

/** A kind watched through an informer (get, list, watch) and written with `writes`. */
export const watched = (type: ResourceType, ...writes: readonly Verb[]): KindAccess => ({
  type,
  verbs: ['get', 'list', 'watch', ...writes],
});

export function apiVersionOf(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** `plural` or `plural.group`: the low-cardinality resource label used in request metrics. */
export function resourceLabel(t: ResourceType, subresource?: string): string {
  const r = t.group ? `${t.plural}.${t.group}` : t.plural;
  return subresource ? `${r}/${subresource}` : r;
}

/** `/api/v1[/namespaces/ns]/pods` or `/apis/g/v[/namespaces/ns]/plural`. Without a namespace,
 *  a namespaced type lists across all namespaces. */
export function collectionPath(t: ResourceType, namespace?: string): string {
  const root = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  const ns = t.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${ns}/${t.plural}`;
}

export function objectPath(
  t: ResourceType,
  namespace: string | undefined,
  name: string,
  subresource?: string,
): string {
  if (t.namespaced && !namespace) throw new TypeError(`${t.kind} ${name}: namespace required`);
  if (!name) throw new TypeError(`${t.kind}: name required`);
  const sub = subresource ? `/${subresource}` : '';
  return `${collectionPath(t, namespace)}/${encodeURIComponent(name)}${sub}`;
}

const t = (
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced = true,
): ResourceType => ({ group, version, kind, plural, namespaced });

/** Types Stepwise reads or writes. Add traffic-router types through `ResourceRegistry`. */
export const Resources = {
  Pod: t('', 'v1', 'Pod', 'pods'),
  Service: t('', 'v1', 'Service', 'services'),
  ConfigMap: t('', 'v1', 'ConfigMap', 'configmaps'),
  Secret: t('', 'v1', 'Secret', 'secrets'),
  Namespace: t('', 'v1', 'Namespace', 'namespaces', false),
  CoreEvent: t('', 'v1', 'Event', 'events'),
  Event: t('events.k8s.io', 'v1', 'Event', 'events'),
  Lease: t('coordination.k8s.io', 'v1', 'Lease', 'leases'),
  ReplicaSet: t('apps', 'v1', 'ReplicaSet', 'replicasets'),
  Deployment: t('apps', 'v1', 'Deployment', 'deployments'),
  PodTemplate: t('', 'v1', 'PodTemplate', 'podtemplates'),
  Job: t('batch', 'v1', 'Job', 'jobs'),
  Ingress: t('networking.k8s.io', 'v1', 'Ingress', 'ingresses'),
  HTTPRoute: t('gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes'),
  VirtualService: t('networking.istio.io', 'v1', 'VirtualService', 'virtualservices'),
  DestinationRule: t('networking.istio.io', 'v1', 'DestinationRule', 'destinationrules'),
  TrafficSplit: t('split.smi-spec.io', 'v1alpha4', 'TrafficSplit', 'trafficsplits'),
  Rollout: t(GROUP, VERSION, 'Rollout', 'rollouts'),
  AnalysisRun: t(GROUP, VERSION, 'AnalysisRun', 'analysisruns'),
  AnalysisTemplate: t(GROUP, VERSION, 'AnalysisTemplate', 'analysistemplates'),
  ClusterAnalysisTemplate: t(
    GROUP,
    VERSION,
    'ClusterAnalysisTemplate',
    'clusteranalysistemplates',
    false,
  ),
  RolloutApproval: t(GROUP, VERSION, 'RolloutApproval', 'rolloutapprovals'),
  ValidatingAdmissionPolicy: t(
    'admissionregistration.k8s.io',
    'v1',
    'ValidatingAdmissionPolicy',
    'validatingadmissionpolicies',
    false,
  ),
  ValidatingAdmissionPolicyBinding: t(
    'admissionregistration.k8s.io',
    'v1',
    'ValidatingAdmissionPolicyBinding',
    'validatingadmissionpolicybindings',
    false,
  ),
} as const satisfies Record<string, ResourceType>;

/** Finds the type of an object from its `apiVersion` and `kind`. */
export class ResourceRegistry {
  readonly #byGvk = new Map<string, ResourceType>();

  constructor(types: Iterable<ResourceType> = Object.values(Resources)) {
    for (const type of types) this.add(type);
  }

  add(type: ResourceType): this {
    this.#byGvk.set(`${apiVersionOf(type)}|${type.kind}`, type);
    return this;
  }

  lookup(apiVersion: string, kind: string): ResourceType | undefined {
    return this.#byGvk.get(`${apiVersion}|${kind}`);
  }

  /** The type of `obj`; throws a TypeError naming what is missing or unknown. */
  typeOf(obj: KubeObject): ResourceType {
    const { apiVersion, kind } = obj;
    if (!apiVersion || !kind) throw new TypeError('object needs apiVersion and kind');
    const found = this.lookup(apiVersion, kind);
    if (!found) throw new TypeError(`unknown resource type ${apiVersion} ${kind}: register it`);
    return found;
  }
}
