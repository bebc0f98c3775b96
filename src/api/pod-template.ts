/**
 * A Rollout's `spec.template` checked as a Kubernetes PodTemplateSpec. The CRD keeps the template
 * schemaless (`x-kubernetes-preserve-unknown-fields`: the full schema would make the CRD about
 * 570 KB, as Argo's is), so the API server accepts a misspelt pod field and it would surface only
 * when a ReplicaSet is refused. Here every field name is checked against the field tree of
 * Kubernetes' models (pod-template-fields.ts, generated), with lists and objects where the
 * models have them; scalar types are left to the API server (client-node types a Quantity as a
 * string, and Kubernetes takes `cpu: 1`). Pure; one walk over the template.
 */
import { POD_TEMPLATE_MODELS, POD_TEMPLATE_RELEASE } from './pod-template-fields.ts';
import { LEAF_TYPES, POD_TEMPLATE_ROOT } from './pod-template-types.ts';

/** Problems past this many are counted, not listed: a template from another tool can have many. */
const MAX_PROBLEMS = 10;

const LEAF_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  Date: 'a time string',
  IntOrString: 'an integer or a string',
};

/**
 * Problems with a pod template, one line each, naming the field's full path:
 * `spec.template.spec.containers[0].imagePullPolicyy: unknown field in a Container (did you mean
 * imagePullPolicy?)`. Null values are allowed anywhere (the API server reads them as unset).
 */
export function podTemplateProblems(template: unknown, at = 'spec.template'): string[] {
  const problems: string[] = [];
  check(template, POD_TEMPLATE_ROOT, at, problems);
  if (problems.length <= MAX_PROBLEMS) return problems;
  const more = problems.length - MAX_PROBLEMS;
  return [...problems.slice(0, MAX_PROBLEMS), `${at}: ${more} more problem${more > 1 ? 's' : ''}`];
}

function check(value: unknown, ref: string, path: string, problems: string[]): void {
  if (value === null || value === undefined) return;
  if (ref.startsWith('[]')) {
    if (!Array.isArray(value)) {
      problems.push(`${path}: must be a list`);
      return;
    }
    value.forEach((item, i) => check(item, ref.slice(2), `${path}[${i}]`, problems));
    return;
  }
  if (ref.startsWith('{}')) {
    if (!isObject(value)) {
      problems.push(`${path}: must be a map`);
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      check(item, ref.slice(2), `${path}.${key}`, problems);
    }
    return;
  }
  if (ref === 'any') return;
  if ((LEAF_TYPES as readonly string[]).includes(ref)) {
    if (typeof value === 'object') problems.push(`${path}: must be ${LEAF_WORDS[ref] ?? ref}`);
    return;
  }
  const fields = POD_TEMPLATE_MODELS[ref];
  if (fields === undefined) return; // not in the tree: nothing known to check against
  if (!isObject(value)) {
    problems.push(`${path}: must be an object (${kindName(ref)})`);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const fieldRef = fields[key];
    if (fieldRef === undefined) {
      problems.push(`${path}.${key}: ${unknownField(key, ref, Object.keys(fields))}`);
    } else {
      check(item, fieldRef, `${path}.${key}`, problems);
    }
  }
}

/** With a guess when one is near; else naming the release, for a field newer than our models
 *  (a Rollout needing one can take its template from a Deployment through workloadRef). */
function unknownField(key: string, ref: string, known: readonly string[]): string {
  const guess = closest(key, known);
  const hint =
    guess === undefined ? `Kubernetes ${POD_TEMPLATE_RELEASE}` : `did you mean ${guess}?`;
  return `unknown field in a ${kindName(ref)} (${hint})`;
}

/** `V1Container` → `Container`, `CoreV1ResourceClaim` → `ResourceClaim`: as Kubernetes names it. */
function kindName(ref: string): string {
  return ref.replace(/^(Core)?V\d+((alpha|beta)\d+)?/, '');
}

/** The known field nearest `key`: the same but for case, or within two edits. */
function closest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameButCase = known.find((k) => k.toLowerCase() === lower);
  if (sameButCase !== undefined) return sameButCase;
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase(), bestDistance);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** Levenshtein distance, or `limit` once it cannot be below it (lengths too far apart). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? limit;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
