/**
 * Where an AnalysisRun's arguments come from: a literal `value`, a field of the run
 * (`valueFrom.fieldRef`), or a Secret key (`valueFrom.secretKeyRef`). Secrets are read one by one
 * with GET through KubeApi and kept for a short TTL: a cluster-wide Secret informer would hold
 * every Secret of the cluster in memory and need list/watch on them. Error messages name the
 * Secret and key, never a value.
 */
import type { AnalysisRun } from '../api/index.ts';
import { Resources } from '../kube/index.ts';
import type { Clock, KubeApi, KubeObject } from '../kube/index.ts';
import type { SecretRef, SecretSource } from '../analysis/providers/index.ts';

export type { SecretRef, SecretSource } from '../analysis/providers/index.ts';

/** Long enough to spare the API server at a 1 s interval, short enough to follow a rotation. */
const SECRET_TTL_MS = 30_000;

interface SecretObject extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}

export class CachedSecretSource implements SecretSource {
  readonly #api: KubeApi;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, { at: number; secret: Promise<SecretObject | undefined> }>();

  constructor(api: KubeApi, clock: Clock, ttlMs = SECRET_TTL_MS) {
    this.#api = api;
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  async secretValue(namespace: string, ref: SecretRef): Promise<string> {
    const secret = await this.#secret(namespace, ref.name);
    const where = `Secret "${namespace}/${ref.name}"`;
    if (secret === undefined) throw new Error(`${where} not found`);
    const encoded = secret.data?.[ref.key];
    if (encoded === undefined) throw new Error(`key "${ref.key}" not found in ${where}`);
    return Buffer.from(encoded, 'base64').toString('utf8');
  }

  #secret(namespace: string, name: string): Promise<SecretObject | undefined> {
    const key = `${namespace}/${name}`;
    const now = this.#clock.now();
    const hit = this.#entries.get(key);
    if (hit !== undefined && now - hit.at < this.#ttlMs) return hit.secret;
    // Concurrent measurements of one run share one GET; a failed GET is not cached.
    const secret = this.#api.get<SecretObject>(Resources.Secret, namespace, name);
    this.#entries.set(key, { at: now, secret });
    secret.catch(() => this.#entries.delete(key));
    return secret;
  }
}

/**
 * The run's arguments by name. Throws an Error (naming the argument, Secret or field, never a
 * value) when one cannot be resolved.
 */
export async function resolveRunArgs(
  run: AnalysisRun,
  secrets: SecretSource,
): Promise<Record<string, string>> {
  const namespace = run.metadata.namespace ?? '';
  const out: Record<string, string> = {};
  for (const arg of run.spec.args ?? []) {
    const from = arg.valueFrom;
    if (from?.secretKeyRef !== undefined) {
      out[arg.name] = await secrets.secretValue(namespace, from.secretKeyRef);
    } else if (from?.fieldRef !== undefined) {
      const v = fieldValue(run, from.fieldRef.fieldPath);
      if (v === undefined)
        throw new Error(`arg "${arg.name}": field ${from.fieldRef.fieldPath} not found`);
      out[arg.name] = v;
    } else if (arg.value !== undefined) {
      out[arg.name] = arg.value;
    } else {
      // podTemplateHashValue is filled in by the Rollout that creates the run.
      throw new Error(`arg "${arg.name}" has no value`);
    }
  }
  return out;
}

/** `metadata.labels['env']`, `metadata.name`, `spec.x.y`: a string or number at that path. */
export function fieldValue(obj: object, fieldPath: string): string | undefined {
  const parts = [...fieldPath.matchAll(/([^.[\]]+)|\[['"]([^'"]*)['"]\]/g)].map(
    (m) => m[1] ?? m[2] ?? '',
  );
  let cur: unknown = obj;
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, p)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return typeof cur === 'string' || typeof cur === 'number' || typeof cur === 'boolean'
    ? String(cur)
    : undefined;
}
