// For the blue-green bench: watches on one namespace's ReplicaSets, Services and Rollouts that
// record when each stage of an update was seen (arrival times of the watch events, on the
// bench's clock): a ReplicaSet created, a ReplicaSet fully available, a Service's selector
// switched to a pod-template hash. Waits re-check on every event, so nothing polls. A watch the
// server ends is resumed (resumable-watch.ts) and counted in `gaps`: the caller repeats a sample
// that spans one.
import type { ReplicaSet, Rollout } from '../../src/api/index.ts';
import type { KubeHttp } from '../cluster/kube-http.ts';
import { ROLLOUTS } from './controller-support.ts';
import { resumableWatch, type ResumableWatch } from './resumable-watch.ts';

const HASH = 'rollouts-pod-template-hash';
const TIMEOUT_MS = 120_000;

interface Service {
  metadata?: { name?: string };
  spec?: { selector?: Record<string, string> };
}

export class SwitchTracker {
  readonly #created = new Map<string, number>();
  /** ReplicaSet name → replicas → first time `availableReplicas` equalled that desired count. */
  readonly #available = new Map<string, Map<number, number>>();
  readonly #replicas = new Map<string, { owner: string; desired: number }>();
  /** Service name → hash → when the selector was first seen on it. */
  readonly #switched = new Map<string, Map<string, number>>();
  readonly #rollouts = new Map<string, Rollout>();
  readonly #waiters = new Set<() => void>();
  /** Service name → the hash it selects now. */
  readonly #selects = new Map<string, string>();
  #watches: ResumableWatch[] = [];
  /** A watch that could not be opened again: every wait fails with it. */
  #failure: Error | undefined;

  static async open(
    http: KubeHttp,
    ns: string,
    log: (line: string) => void = () => undefined,
  ): Promise<SwitchTracker> {
    const t = new SwitchTracker();
    const watch = async (
      path: string,
      onEvent: (type: string, obj: Record<string, unknown>, at: number) => void,
    ): Promise<void> => {
      t.#watches.push(
        await resumableWatch(http, path, {
          onEvent: (type, obj, at) => {
            onEvent(type, obj, at);
            t.#wake();
          },
          onGap: (why) => log(`watch resumed (${why}); a sample spanning it is repeated`),
          onFailed: (err) => {
            t.#failure = err;
            t.#wake();
          },
        }),
      );
    };
    await watch(`/apis/apps/v1/namespaces/${ns}/replicasets`, (type, rs, at) =>
      t.#onReplicaSet(type, rs, at),
    );
    await watch(`/api/v1/namespaces/${ns}/services`, (_type, obj, at) => {
      const svc = obj as Service;
      const name = svc.metadata?.name ?? '';
      const hash = svc.spec?.selector?.[HASH] ?? '';
      t.#selects.set(name, hash);
      const seen = t.#switched.get(name) ?? new Map<string, number>();
      if (!seen.has(hash)) seen.set(hash, at);
      t.#switched.set(name, seen);
    });
    await watch(`${ROLLOUTS}/namespaces/${ns}/rollouts`, (_type, obj) => {
      const r = obj as unknown as Rollout;
      t.#rollouts.set(r.metadata.name ?? '', r);
    });
    return t;
  }

  /** How many times one of its watches ended and was opened again. */
  get gaps(): number {
    return this.#watches.reduce((n, w) => n + w.gaps, 0);
  }

  /** The hash a Service selects now, as last seen. */
  selects(service: string): string | undefined {
    return this.#selects.get(service);
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  #onReplicaSet(type: string, rs: ReplicaSet, at: number): void {
    const name = rs.metadata?.name ?? '';
    if (type === 'DELETED') {
      this.#replicas.delete(name);
      return;
    }
    if (!this.#created.has(name)) this.#created.set(name, at);
    const desired = rs.spec?.replicas ?? 0;
    const owner = rs.metadata?.ownerReferences?.[0]?.name ?? '';
    this.#replicas.set(name, { owner, desired });
    const available = rs.status?.availableReplicas ?? 0;
    // Fully available: every pod it should have is available, as the RS controller reports it.
    if (
      desired > 0 &&
      available === desired &&
      rs.status?.observedGeneration === rs.metadata?.generation
    ) {
      const byCount = this.#available.get(name) ?? new Map<number, number>();
      if (!byCount.has(desired)) byCount.set(desired, at);
      this.#available.set(name, byCount);
    }
  }

  createdAt(rs: string): number | undefined {
    return this.#created.get(rs);
  }

  fullyAvailableAt(rs: string, replicas: number): number | undefined {
    return this.#available.get(rs)?.get(replicas);
  }

  /** When `service` was first seen selecting `hash`. */
  switchedAt(service: string, hash: string): number | undefined {
    return this.#switched.get(service)?.get(hash);
  }

  /** Whether every ReplicaSet of the Rollout but `keep` is at 0 replicas. */
  onlyScaledUp(rollout: string, keep: string): boolean {
    return [...this.#replicas].every(
      ([name, r]) => r.owner !== rollout || name === keep || r.desired === 0,
    );
  }

  /** Resolves once `check` holds (re-checked on every watch event). */
  until(what: string, check: () => boolean, timeoutMs = TIMEOUT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const run = (): void => {
        if (this.#failure !== undefined) {
          clearTimeout(timer);
          this.#waiters.delete(run);
          reject(new Error(`${what}: ${this.#failure.message}`));
          return;
        }
        if (!check()) return;
        clearTimeout(timer);
        this.#waiters.delete(run);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(run);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.#waiters.add(run);
      run();
    });
  }

  /** Resolves with the Rollout once `pred` holds for it. */
  async rolloutUntil(name: string, pred: (r: Rollout) => boolean): Promise<Rollout> {
    let found: Rollout | undefined;
    await this.until(`rollout ${name}`, () => {
      const r = this.#rollouts.get(name);
      if (r === undefined || !pred(r)) return false;
      found = r;
      return true;
    });
    return found as Rollout;
  }

  close(): void {
    for (const w of this.#watches) w.close();
    this.#watches = [];
  }
}
