/**
 * Whether a live pod template is a declared one once the API server's defaults are taken into
 * account. A ReplicaSet stores its template defaulted (`imagePullPolicy`, `dnsPolicy`,
 * `terminationMessagePath`, `resources: {}`…); a Rollout's template is stored as written. So a
 * template Argo's controller (or an `undo`) put on a ReplicaSet compares equal to the Rollout's
 * only up to those defaults. Argo's hash is never recomputed (it is Go-specific); templates are
 * compared instead. Pure.
 */

/** Fields the API server fills in on a pod template, by key, with the value it gives them. */
const DEFAULTS: Readonly<Record<string, readonly unknown[]>> = {
  restartPolicy: ['Always'],
  terminationGracePeriodSeconds: [30],
  dnsPolicy: ['ClusterFirst'],
  schedulerName: ['default-scheduler'],
  terminationMessagePath: ['/dev/termination-log'],
  terminationMessagePolicy: ['File'],
  protocol: ['TCP'],
  timeoutSeconds: [1],
  periodSeconds: [10],
  successThreshold: [1],
  failureThreshold: [3],
  scheme: ['HTTP'],
  defaultMode: [420],
  apiVersion: ['v1'],
  creationTimestamp: [null],
};

/** Kubernetes' rule: `:latest` or no tag pulls always, anything else if not present. */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const name = image.slice(image.lastIndexOf('/') + 1);
  const colon = name.lastIndexOf(':');
  return colon === -1 || name.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: Json): boolean =>
  v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0);

/** A live field the declared template leaves out, with the value the API server gives it. */
function isDefault(key: string, value: Json, parent: Record<string, Json>): boolean {
  if (isEmpty(value)) return true;
  if (key === 'imagePullPolicy') return value === defaultPullPolicy(parent.image);
  return DEFAULTS[key]?.includes(value) === true;
}

const show = (v: Json): string => (v === undefined ? 'absent' : JSON.stringify(v));

/**
 * The first place where `live` is not `declared` up to defaults, as `path: live X, declared Y`;
 * undefined when they are the same template.
 */
export function templateDifference(declared: Json, live: Json, path = ''): string | undefined {
  if (isEmpty(declared) && isEmpty(live)) return undefined;
  if (Array.isArray(declared) && Array.isArray(live)) {
    if (declared.length !== live.length) {
      return `${path}: ${live.length} live, ${declared.length} declared`;
    }
    for (const [i, d] of declared.entries()) {
      const diff = templateDifference(d, live[i], `${path}[${i}]`);
      if (diff !== undefined) return diff;
    }
    return undefined;
  }
  if (isObject(declared) && isObject(live)) {
    for (const key of new Set([...Object.keys(declared), ...Object.keys(live)])) {
      const d = declared[key];
      const l = live[key];
      const at = path === '' ? key : `${path}.${key}`;
      if (d === undefined && isDefault(key, l, live)) continue;
      const diff = templateDifference(d, l, at);
      if (diff !== undefined) return diff;
    }
    return undefined;
  }
  return declared === live ? undefined : `${path}: live ${show(live)}, declared ${show(declared)}`;
}

export function sameTemplate(declared: Json, live: Json): boolean {
  return templateDifference(declared, live) === undefined;
}
