/**
 * Watch-recorded histories for the fault-path tests: every event a watch delivers, in the order
 * the API server sent it, so a test can count status writes or check the order of scale changes.
 * One watch on a collection gives one global order for the objects in it.
 */
import type { ReplicaSet, Rollout } from '../../../src/api/index.ts';
import { http } from './rollouts.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Recorded<T> {
  readonly type: EventType;
  readonly object: T;
  /** When this process received it (Date.now()). */
  readonly at: number;
}

interface Named {
  metadata?: { name?: string };
}

/** Histories not yet stopped: a test that fails before its stop() would leave a watch open,
 *  and an open watch keeps the test file's process from ending. */
const open = new Set<{ stop(): void }>();

/** Stops every history still open (an afterEach hook of the test files that watch). */
export function stopWatches(): void {
  for (const h of [...open]) h.stop();
}

/** A running watch that keeps every ADDED/MODIFIED/DELETED event it receives. */
export class WatchHistory<T extends Named> {
  readonly events: Recorded<T>[] = [];
  readonly #waiters = new Set<() => void>();
  #close: () => void = () => undefined;

  /**
   * Starts watching `collection` (a path, optionally with a selector). The first events list
   * what exists now (ADDED); the promise resolves once the server answered, so no later
   * change is missed.
   */
  static async start<T extends Named>(collection: string): Promise<WatchHistory<T>> {
    const history = new WatchHistory<T>();
    const handle = await http.watch(collection, (e) => {
      if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') return;
      history.events.push({ type: e.type, object: e.object as T, at: Date.now() });
      for (const wake of [...history.#waiters]) wake();
    });
    history.#close = () => handle.close();
    open.add(history);
    return history;
  }

  /** The number of events so far: a mark to count or slice from. */
  get mark(): number {
    return this.events.length;
  }

  count(type: EventType, from = 0, to = this.events.length): number {
    return this.events.slice(from, to).filter((e) => e.type === type).length;
  }

  /** Resolves with the index of the first event at or after `from` that `pred` accepts. */
  until(what: string, pred: (e: Recorded<T>) => boolean, from = 0, timeoutMs = 60_000) {
    return new Promise<number>((resolve, reject) => {
      let next = from;
      const check = (): boolean => {
        for (; next < this.events.length; next++) {
          const event = this.events[next];
          if (event && pred(event)) {
            resolve(next);
            return true;
          }
        }
        return false;
      };
      if (check()) return;
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        const last = JSON.stringify(this.events.at(-1)?.object ?? null).slice(0, 3000);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${last}`));
      }, timeoutMs);
      const wake = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.#waiters.delete(wake);
      };
      this.#waiters.add(wake);
    });
  }

  /**
   * Keeps recording for `windowMs` and returns the events that arrived in it. This is the one
   * place a test waits on the clock: it is how "nothing more happens" is observed.
   */
  async window(windowMs: number): Promise<Recorded<T>[]> {
    const from = this.mark;
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    return this.events.slice(from);
  }

  stop(): void {
    open.delete(this);
    this.#close();
    for (const wake of [...this.#waiters]) wake();
  }
}

export function watchRollout(namespace: string, name: string): Promise<WatchHistory<Rollout>> {
  return WatchHistory.start<Rollout>(
    `/apis/stepwise.dev/v1alpha1/namespaces/${namespace}/rollouts?fieldSelector=metadata.name%3D${name}`,
  );
}

export function watchReplicaSets(namespace: string): Promise<WatchHistory<ReplicaSet>> {
  return WatchHistory.start<ReplicaSet>(`/apis/apps/v1/namespaces/${namespace}/replicasets`);
}

const HASH = 'rollouts-pod-template-hash';

/** spec.replicas of each ReplicaSet (by pod template hash) after each recorded event. */
export interface ScaleState {
  readonly index: number;
  readonly replicas: ReadonlyMap<string, number>;
}

/** Replays a ReplicaSet history into the sequence of states it describes. */
export function scaleStates(history: readonly Recorded<ReplicaSet>[]): ScaleState[] {
  const current = new Map<string, number>();
  return history.map((e, index) => {
    const hash = e.object.metadata?.labels?.[HASH] ?? e.object.metadata?.name ?? '';
    if (e.type === 'DELETED') current.delete(hash);
    else current.set(hash, e.object.spec?.replicas ?? 0);
    return { index, replicas: new Map(current) };
  });
}

export function total(state: ScaleState): number {
  return [...state.replicas.values()].reduce((a, b) => a + b, 0);
}

/** A compact trace such as `4/0 → 3/1 → 4/1 → 4/0` (stable/canary), for failure messages. */
export function trace(states: readonly ScaleState[], stable: string, canary: string): string {
  const steps: string[] = [];
  for (const s of states) {
    const step = `${s.replicas.get(stable) ?? 0}/${s.replicas.get(canary) ?? 0}`;
    if (steps.at(-1) !== step) steps.push(step);
  }
  return steps.join(' → ');
}
