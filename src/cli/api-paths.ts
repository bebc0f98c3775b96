/**
 * PURE: REST paths of the kinds the plugin reads and writes, with every segment encoded (names
 * are checked before they get here too, src/cli/names.ts), and the content types of its writes.
 */
import {
  ANALYSIS_RUN_PLURAL,
  GROUP,
  ROLLOUT_APPROVAL_PLURAL,
  ROLLOUT_PLURAL,
} from '../api/keys.ts';
import { VERSION } from '../api/keys.ts';

export interface ApiResource {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

const stepwise = (plural: string): ApiResource => ({ group: GROUP, version: VERSION, plural });
const apps = (plural: string): ApiResource => ({ group: 'apps', version: 'v1', plural });
const core = (plural: string): ApiResource => ({ group: '', version: 'v1', plural });

export const RESOURCES = {
  rollouts: stepwise(ROLLOUT_PLURAL),
  analysisruns: stepwise(ANALYSIS_RUN_PLURAL),
  rolloutapprovals: stepwise(ROLLOUT_APPROVAL_PLURAL),
  replicasets: apps('replicasets'),
  deployments: apps('deployments'),
  pods: core('pods'),
  podtemplates: core('podtemplates'),
  events: core('events'),
  selfsubjectreviews: {
    group: 'authentication.k8s.io',
    version: 'v1',
    plural: 'selfsubjectreviews',
  },
  tokenreviews: { group: 'authentication.k8s.io', version: 'v1', plural: 'tokenreviews' },
  subjectaccessreviews: {
    group: 'authorization.k8s.io',
    version: 'v1',
    plural: 'subjectaccessreviews',
  },
} as const satisfies Record<string, ApiResource>;

/** The collection: in `namespace`, or across all namespaces (or cluster-scoped) when undefined. */
export function collectionPath(r: ApiResource, namespace?: string): string {
  const root = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${root}${ns}/${r.plural}`;
}

export function objectPath(
  r: ApiResource,
  namespace: string | undefined,
  name: string,
  subresource?: string,
): string {
  const sub = subresource === undefined ? '' : `/${subresource}`;
  return `${collectionPath(r, namespace)}/${encodeURIComponent(name)}${sub}`;
}

export const CONTENT_TYPE = {
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  /** Server-side apply; JSON is YAML, so the body stays JSON. */
  apply: 'application/apply-patch+yaml',
} as const;
