// What each informer cache holds per object: real objects read from the benchmark's cluster,
// put through the informer's own cachedForm (transform, freeze) and the controller's indexers into a Store `copies` times
// (distinct names, as the informer parses each from its own JSON), measured as V8 heap used after
// a memory-reducing collection before and after. Bench-side, in this process, so the
// controller's own heap is not disturbed.
import { getHeapStatistics } from 'node:v8';
import type { CacheSpec } from '../../src/controller/informers.ts';
import { v8Reclaim } from '../../src/controller/memory-reclaim.ts';
import type { KubeObject } from '../../src/kube/objects.ts';
import { objectKey } from '../../src/kube/objects.ts';
import { cachedForm, Store, type IndexFunc } from '../../src/kube/store.ts';

export interface CacheSample {
  readonly cache: string;
  readonly raw: KubeObject;
  readonly transform?: (o: KubeObject) => KubeObject;
  readonly indexers?: Readonly<Record<string, IndexFunc<KubeObject>>>;
}

/** A sample kept as the controller's informer for `spec` keeps it (src/controller/informers.ts). */
export function cacheSample<T extends KubeObject>(
  spec: CacheSpec<T>,
  raw: KubeObject,
): CacheSample {
  // The informer's types are per kind; the measurement only moves objects through them.
  type Untyped = Pick<CacheSample, 'transform' | 'indexers'>;
  const { transform, indexers } = spec as unknown as Untyped;
  return {
    cache: spec.name,
    raw,
    ...(transform ? { transform } : {}),
    ...(indexers ? { indexers } : {}),
  };
}

export interface CacheFootprint {
  readonly cache: string;
  /** The object as the API server sends it (JSON bytes, managedFields included). */
  readonly wireBytes: number;
  /** V8 heap per cached object: parsed, transformed, frozen, indexed. */
  readonly heapBytes: number;
}

export async function cacheFootprints(
  samples: readonly CacheSample[],
  copies = 1000,
): Promise<CacheFootprint[]> {
  const collect = v8Reclaim();
  // Every store stays alive to the end, or one freed during the next measurement reads negative.
  const kept: Store<KubeObject>[] = [];
  const fill = (s: CacheSample, n: number): Store<KubeObject> => {
    const text = JSON.stringify(s.raw);
    const name = s.raw.metadata?.name ?? '';
    const store = new Store<KubeObject>(s.indexers ?? {});
    for (let i = 0; i < n; i++) {
      // A distinct string per copy, as each watch event brings its own.
      const parsed = JSON.parse(text.replaceAll(`"${name}"`, `"${name}-${i}"`)) as KubeObject;
      const obj = cachedForm(parsed, s.transform);
      store.set(objectKey(obj), obj);
    }
    if (store.size !== n) throw new Error(`${s.cache}: ${store.size} of ${n} cached`);
    return store;
  };
  // Once untimed: the first fill also allocates code and type feedback, which is not per object.
  for (const s of samples) fill(s, 50);
  const out: CacheFootprint[] = [];
  for (const s of samples) {
    await collect();
    const before = getHeapStatistics().used_heap_size;
    kept.push(fill(s, copies));
    await collect();
    const after = getHeapStatistics().used_heap_size;
    out.push({
      cache: s.cache,
      wireBytes: JSON.stringify(s.raw).length,
      heapBytes: (after - before) / copies,
    });
  }
  kept.length = 0;
  return out;
}
