/**
 * Read your writes (Kubernetes' ControllerExpectations, pkg/controller/controller_utils.go): the
 * informer's cache learns of our own write only when the watch delivers it, and a pass that
 * plans from the copy before the write would take the same step twice (scale a ReplicaSet
 * again, measure again). So after each write the reconciler records which resourceVersions that
 * write replaced; while the cache still shows one of them, the cache is stale for that object.
 *
 * What a reconciler does with a stale cache is its own choice: the Rollout reconciler defers the
 * pass, the AnalysisRun reconciler goes on from the copy the server answered (`written`). Any
 * other version in the cache (ours arrived, or someone else wrote) is fresh and clears the
 * expectation. An expectation also expires after `ttlMs` (five minutes, as in Kubernetes): a
 * watch that never delivers our write must not hold an object back for ever.
 */
import type { Clock } from '../kube/index.ts';

export const EXPECTATION_TTL_MS = 5 * 60_000;

export interface Expectation<T> {
  /** The versions our writes replaced: a cache showing one of them has not caught up. */
  readonly replaced: ReadonlySet<string>;
  /** What the server answered to our last write. */
  readonly written: T;
}

interface Entry<T> extends Expectation<T> {
  readonly expiresAt: number;
}

export class Expectations<T> {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, Entry<T>>();

  constructor(clock: Clock, ttlMs = EXPECTATION_TTL_MS) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** After a write of `key`: the cache is stale while it shows a version in `replaced`. */
  expect(key: string, replaced: Iterable<string>, written: T): void {
    this.#entries.set(key, {
      replaced: new Set(replaced),
      written,
      expiresAt: this.#clock.now() + this.#ttlMs,
    });
  }

  /**
   * The expectation when the cache, showing `cachedVersion` of `key`, has not seen our write
   * yet; undefined when it has (or the expectation expired), which also forgets it.
   */
  stale(key: string, cachedVersion: string | undefined): Expectation<T> | undefined {
    const entry = this.peek(key, cachedVersion);
    if (entry === undefined) this.#entries.delete(key);
    return entry;
  }

  /** As `stale`, but keeps the expectation either way (a check that decides nothing). */
  peek(key: string, cachedVersion: string | undefined): Expectation<T> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || this.#clock.now() >= entry.expiresAt) return undefined;
    return entry.replaced.has(cachedVersion ?? '') ? entry : undefined;
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every key `matches` accepts (the children of a deleted owner). */
  forgetWhere(matches: (key: string) => boolean): void {
    for (const key of this.#entries.keys()) if (matches(key)) this.#entries.delete(key);
  }
}
