/**
 * The informer's in-memory cache: objects by key (`namespace/name`) plus named secondary indexes
 * (client-go's `Indexer`), e.g. ReplicaSets by owning Rollout. Readers get the stored objects
 * themselves, deep-frozen by the informer: a reconciler that tried to edit one in place throws.
 */
import { stripManagedFields, type KubeObject, type ObjectKey } from './objects.ts';

/** The index values of one object (e.g. the key of its owner); empty to leave it out. */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** The read side of a store, as handed to reconcilers. */
export interface Cache<T extends KubeObject> {
  get(key: ObjectKey): T | undefined;
  list(): T[];
  keys(): ObjectKey[];
  readonly size: number;
  /** Objects whose index function `name` returned `value`. Throws for an unknown index. */
  byIndex(name: string, value: string): T[];
}

export class Store<T extends KubeObject> implements Cache<T> {
  readonly #items = new Map<ObjectKey, T>();
  readonly #indexers: Readonly<Record<string, IndexFunc<T>>>;
  /** index name -> index value -> keys */
  readonly #indexes = new Map<string, Map<string, Set<ObjectKey>>>();

  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    this.#indexers = indexers;
    for (const name of Object.keys(indexers)) this.#indexes.set(name, new Map());
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: ObjectKey): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): ObjectKey[] {
    return [...this.#items.keys()];
  }

  byIndex(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`no index named ${name}`);
    const out: T[] = [];
    for (const key of index.get(value) ?? []) {
      const obj = this.#items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Stores `obj` under `key`; returns the object it replaced. */
  set(key: ObjectKey, obj: T): T | undefined {
    const prev = this.#items.get(key);
    if (prev) this.#unindex(key, prev);
    this.#items.set(key, obj);
    this.#index(key, obj);
    return prev;
  }

  /** Removes `key`; returns the object it held. */
  delete(key: ObjectKey): T | undefined {
    const prev = this.#items.get(key);
    if (!prev) return undefined;
    this.#unindex(key, prev);
    this.#items.delete(key);
    return prev;
  }

  #index(key: ObjectKey, obj: T): void {
    for (const [name, fn] of Object.entries(this.#indexers)) {
      const index = this.#indexes.get(name) as Map<string, Set<ObjectKey>>;
      for (const value of fn(obj)) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  #unindex(key: ObjectKey, obj: T): void {
    for (const [name, fn] of Object.entries(this.#indexers)) {
      const index = this.#indexes.get(name) as Map<string, Set<ObjectKey>>;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}

/** Freezes an object graph in place (plain data from JSON: objects and arrays). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value as object)) deepFreeze(v);
  return value;
}

/** What an informer keeps of an object it reads: its transform's result (by default without
 *  `metadata.managedFields`), frozen so no reader can change the cache. */
export function cachedForm<T extends KubeObject>(
  raw: T,
  transform: (obj: T) => T = stripManagedFields,
): T {
  return deepFreeze(transform(raw));
}
